import traceback

import tensorflow as tf

print(tf.config.list_logical_devices())
try:
    tf.config.set_logical_device_configuration(
        tf.config.list_physical_devices('CPU')[0],
        [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()],
    )
    print("set_logical_device_configuration: no error")
except Exception:
    traceback.print_exc()
