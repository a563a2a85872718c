"""The one room where commands are built and proven, below the checks.

- :mod:`.commands`: a fix written for the target's own installer and interpreter;
- :mod:`.recommend`: the TensorFlow release (and its command) this machine can run;
- :mod:`.proof`: the installer's own answer to a command (its policy, and its dry run).
"""
