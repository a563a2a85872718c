ARG CUDA=12.3.2
FROM nvidia/cuda:${CUDA}-cudnn9-runtime-ubuntu24.04 AS base
RUN apt-get update && apt-get install -y python3-pip nvidia-driver-535
ENV CUDA_VISIBLE_DEVICES=0 \
    LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH

FROM base AS train
RUN pip install "tensorflow[and-cuda]==2.15.1" && \
    pip install torch
