"""Digits as the flags and version strings mean them: ASCII only.

``str.isdigit`` also accepts "¹" or "٣", which ``int()`` then rejects or reads differently.
"""


def is_whole_number(text: str) -> bool:
    return text.isascii() and text.isdigit()
