# Lines quoted from github.com/Klimorg/cracks_defect, Dockerfile
#FROM tensorflow/tensorflow:nightly-gpu
FROM nvcr.io/nvidia/tensorflow:20.12-tf2-py3
COPY requirements.txt .
RUN /bin/bash -c "pip install --no-cache-dir -r requirements.txt"
