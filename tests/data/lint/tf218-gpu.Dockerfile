FROM tensorflow/tensorflow:2.18.0-gpu
COPY train.py /app/
CMD ["python", "/app/train.py"]
