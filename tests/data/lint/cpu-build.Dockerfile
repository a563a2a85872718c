# The ARG line is quoted from a public Dockerfile found by code search (repository not named
# by the index); the rest is written around it.
FROM nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04
RUN apt-get update && apt-get install -y python3-pip
ARG TENSORFLOW_PKG=tensorflow-cpu==2.12.0
RUN pip3 install ${TENSORFLOW_PKG}
