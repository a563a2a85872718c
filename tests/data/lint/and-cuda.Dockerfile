FROM python:3.11-slim
RUN pip install --no-cache-dir "tensorflow[and-cuda]==2.17.0"
