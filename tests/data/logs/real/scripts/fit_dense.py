import numpy as np
import tensorflow as tf

x = np.random.rand(64, 8).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(x, y, epochs=1, batch_size=16)
print(history.history)
