"""The one reader: every text gpucheck reads (TensorFlow's captured log, ``doctor --log``,
``explain``, the solved reports ``similar`` searches, ``lint``'s files) becomes lines, recognised
messages and stated facts here, below the checks.

- :mod:`.textlines`: pasted text as lines (prompts, quotes and wrapped lines undone);
- :mod:`.logrules` / :mod:`.logscan`: the cited message rules of ``knowledge/rules`` applied;
- :mod:`.factrules` / :mod:`.textfacts`: the facts a text states (versions, packages, OS, GPU),
  in the languages people write.
"""
