import traceback

import tensorflow as tf

cpu = tf.config.list_physical_devices('CPU')[0]
print(cpu)
try:
    tf.config.experimental.set_memory_growth(cpu, True)
    print("set_memory_growth: no error")
except Exception:
    traceback.print_exc()
