FROM nvidia/cuda:12.3.2-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip install tensorflow==2.16.1 "numpy>=2"
