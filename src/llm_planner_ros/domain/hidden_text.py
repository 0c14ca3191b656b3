"""Text that can read as something it is not: control and format characters (zero-width and bidirectional
marks, the byte-order mark), which hide or reorder what is shown, and words that mix Latin letters with
Cyrillic or Greek ones ("bаnаna" with a Cyrillic а), which read as one name and are another.

One rule for every text the robot acts on: an instruction (llm_planner_ros.planning.instruction_check) and
the names, synonyms and skill texts a domain's files declare (domain.config, domain.skill_library).
Each function says what it found, with its code point and position (1 = the first character), or None.
"""

from __future__ import annotations

import re
import unicodedata

# Characters refused by Unicode category.
_REFUSED = {"Cc": "control", "Cf": "format"}
# Words, a hyphenated compound as one ("lemon-lime", "7-up"), an apostrophe kept ("don't").
WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
# Scripts whose letters are drawn like Latin ones; a word mixing one of them with Latin is refused.
_LOOKALIKE_SCRIPTS = frozenset({"CYRILLIC", "GREEK"})
# What to do about a word that mixes alphabets, for the messages of every caller.
MIXED_SCRIPT_FIX = "it looks like one word and is another; type it in one alphabet"


def hidden_character(text: str, allowed: str = "") -> str | None:
    """The first control or format character of ``text`` not in ``allowed``, as "the format character
    U+202E (RIGHT-TO-LEFT OVERRIDE) at position 3"; None when there is none."""
    for position, char in enumerate(text, start=1):
        kind = _REFUSED.get(unicodedata.category(char))
        if kind is not None and char not in allowed:
            return f"the {kind} character {describe(char)} at position {position}"
    return None


def mixed_script_word(text: str) -> str | None:
    """The first word of ``text`` with Latin letters and Cyrillic or Greek ones, as "the word 'bаnаna'
    mixes Latin letters with U+0430 (CYRILLIC SMALL LETTER A) at position 2"; None when there is none."""
    for match in WORD.finditer(text):
        scripts = {_script(char) for char in match[0] if char.isalpha()}
        if "LATIN" in scripts and scripts & _LOOKALIKE_SCRIPTS:
            offset, char = next(
                (i, c) for i, c in enumerate(match[0]) if c.isalpha() and _script(c) in _LOOKALIKE_SCRIPTS
            )
            return (
                f"the word {match[0]!r} mixes Latin letters with {describe(char)} at position "
                f"{match.start() + offset + 1}"
            )
    return None


def hidden_text(text: str) -> str | None:
    r"""What in ``text`` (a name, not a sentence: tabs and line breaks count too) can hide or disguise what
    it says, with the fix ("'de\u202esk' has the format character U+202E (...) at position 3: remove it
    ..."); None when nothing can."""
    character = hidden_character(text)
    if character is not None:
        # repr() shows the text with the character escaped: printed as it is, it would act on the terminal.
        return f"{text!r} has {character}: remove it (control and format characters can hide or reorder text)"
    mixed = mixed_script_word(text)
    return None if mixed is None else f"{mixed}: {MIXED_SCRIPT_FIX}"


def visible(text: str) -> str:
    r"""``text`` with its control and format characters as escapes (``\u202e``), for messages that show a
    name a file declares: a hidden or reordering character in it must not act on the terminal."""
    return "".join(
        char.encode("unicode_escape").decode() if unicodedata.category(char) in _REFUSED else char for char in text
    )


def describe(char: str) -> str:
    """``char`` as its code point and Unicode name: "U+200B (ZERO WIDTH SPACE)"."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} ({name or repr(char)})"


def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ")[0]
