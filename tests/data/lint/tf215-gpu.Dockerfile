# Lines quoted from github.com/Alex-McEwan/BachelorAssignment, Dockerfile
FROM tensorflow/tensorflow:2.15.0-gpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
