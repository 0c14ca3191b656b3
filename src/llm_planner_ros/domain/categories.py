"""Categories of a domain's objects: the kinds people ask for instead of a label ("something to drink").

An object lists the categories it belongs to; the world file may give a category the other words
people use for it and the statements of a need it answers (docs/domains.md)::

    objects:
      water bottle: {article: a, categories: [drink]}
      mug:          {article: a, categories: [drink]}
      apple:        {article: an, categories: [food]}
    categories:                                     # optional: words for the categories objects list
      drink: {synonyms: [something to drink, a beverage], needs: ["I'm thirsty"]}
      food:  {article: some, synonyms: [something to eat]}   # "some food"; without it "a"/"an"

A goal may name a category where it names a label (``{at: {label: drink, location: user}}``: any of its
objects); the request check reads its name and synonyms as asking for one of its objects; the generated
part of a domain's bank words requests with them and with its needs. Plans always use the labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.validation import Checker, join

# What "find {article} {object}" may say: "some" for what is not counted one by one (some water, some food).
ARTICLES = ("a", "an", "some")


@dataclass(frozen=True)
class Category:
    """One category: the object ``labels`` in it (in the world file's order), the other words people use
    for it (``synonyms``: "something to drink") and statements of the need it answers (``needs``: "I'm
    thirsty")."""

    name: str
    labels: tuple[str, ...]
    synonyms: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    article: str = ""

    @property
    def asked(self) -> str:
        """Its name with its article ("a drink", "some food"); "an" before a vowel when none is given."""
        article = self.article or ("an" if self.name[0].lower() in "aeiou" else "a")
        return f"{article} {self.name}"

    @property
    def names(self) -> tuple[str, ...]:
        """Its name, then its synonyms: every phrase that asks for one of its objects."""
        return (self.name, *self.synonyms)


def text_list(value: Any, where: str, check: Checker) -> tuple[str, ...] | None:
    """A non-empty list of texts, stripped: an object's ``categories``, a category's synonyms or needs."""
    names = check.list_of(value, where)
    if names is None:
        return None
    texts = [check.string(name, join(where, index)) for index, name in enumerate(names)]
    if None in texts:
        return None
    return tuple(text.strip() for text in texts if text is not None)


def parse_categories(
    value: Any, membership: Mapping[str, tuple[str, ...]], taken: Mapping[str, str], check: Checker
) -> dict[str, Category]:
    """The categories the objects list (``membership``: label -> its categories), with the words the
    top-level ``categories`` mapping (``value``; None when absent) gives them. ``taken`` maps every label,
    location and synonym to what it is ("the location 'desk'"): a category name or synonym may be none of
    them."""
    members: dict[str, list[str]] = {}
    for label, names in membership.items():
        for name in names:
            members.setdefault(name, []).append(label)
    words: Mapping[str, Any] = {}
    if value is not None:
        words = check.named_entries(value, "categories", "category") or {}
    for name in words:
        if name not in members:
            check.add(
                join("categories", name),
                f"no object lists the category {name!r}: add it to an object's categories or remove this entry",
            )
    owner = dict(taken)
    categories: dict[str, Category] = {}
    for name, labels in members.items():
        where = join("categories", name) if name in words else _first_use(name, membership)
        _claim(name, f"the category {name!r}", where, owner, check)
        synonyms, needs, article = _words(words.get(name), join("categories", name), check)
        for index, synonym in enumerate(synonyms):
            _claim(
                synonym, f"the category {name!r}", join(join("categories", name), join("synonyms", index)), owner, check
            )
        categories[name] = Category(name, tuple(labels), synonyms, needs, article)
    return categories


def category_labels(categories: Mapping[str, Category], names: Iterable[str]) -> tuple[str, ...]:
    """``names`` (labels or categories) with each category replaced by its labels, in order, each once."""
    labels: dict[str, None] = {}
    for name in names:
        labels.update(dict.fromkeys(categories[name].labels if name in categories else (name,)))
    return tuple(labels)


def _words(value: Any, where: str, check: Checker) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """A category entry's (synonyms, needs, article); ``{}`` or nothing gives none of them."""
    entry = None if value is None else check.mapping(value, where, optional=("article", "synonyms", "needs"))
    if entry is None:
        return (), (), ""
    synonyms, needs = (
        (text_list(entry[key], join(where, key), check) if key in entry else ()) or () for key in ("synonyms", "needs")
    )
    article = check.one_of(entry["article"], join(where, "article"), ARTICLES, "article") if "article" in entry else ""
    return synonyms, needs, article or ""


def _first_use(name: str, membership: Mapping[str, tuple[str, ...]]) -> str:
    """The field of the first object that lists category ``name``."""
    label = next(label for label, names in membership.items() if name in names)
    return join(join("objects", label), join("categories", membership[label].index(name)))


def _claim(word: str, category: str, where: str, owner: dict[str, str], check: Checker) -> None:
    """Record ``word`` as ``category``'s; a problem when it already names another thing."""
    holder = owner.setdefault(word, category)
    if holder != category:
        check.add(where, f"{word!r} is already {holder}: a word names one thing, rename one of them")
