"""Deterministic text helpers for the extractive summarizer (English and French).

Sentence splitting, word tokens, an EN+FR stopword list, decision/finding cues, and file path
extraction (POSIX, relative, home and Windows paths, plus bare file names with a known extension).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "FILE_EXTENSIONS",
    "STOPWORDS",
    "cue_count",
    "dedupe",
    "extract_paths",
    "extract_paths_from_args",
    "path_key",
    "split_sentences",
    "strip_code_blocks",
    "word_tokens",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS: frozenset[str] = _words(
    """
    a about above after again against all almost also although always am among an and another any anyone
    anything are aren around as ask asked at away back be became because become been before being below
    between both but by can cannot could couldn did didn do does doesn doing don done down during each
    either else enough even ever every everything few first for from further get gets getting give given
    go goes going gone got had hadn has hasn have haven having he her here hers herself him himself his how
    however i if in into is isn it its itself just keep know last least less let like likely made make makes
    making many may maybe me might mine more most mostly much must my myself need needs never new next no
    nor not nothing now of off often ok okay on once one only or other others otherwise our ours ourselves
    out over own please put quite rather really right said same say says see seem seems set several shall
    she should shouldn show since so some something still such sure take than thank thanks that the their
    theirs them themselves then there these they thing things think this those though through thus to too
    took try trying two under until up upon us use used uses using very via want wants was wasn way we well
    were weren what whatever when where whether which while who whom whose why will with within without
    won would wouldn yes yet you your yours yourself yourselves let's i'm it's that's there's can't don't
    doesn't didn't isn't won't i've i'll you're we're they're here's what's now also already
    sure okay hello hi hey thanks great good fine actually basically simply just
    au aux avec avoir ai as avons avez ont avait avaient aura auront aussi autre autres bien c ça car ce
    ceci cela celle celles celui ceux ces cet cette chaque chez comme comment d dans de des depuis donc dont
    du elle elles en encore entre est et étaient était été être eu eux faire fait faut il ils j je jusqu l la
    le les leur leurs lui m ma mais me même mes moi mon n ne ni nos notre nous on ont ou où par parce pas
    peu peut peuvent plus pour pourquoi qu quand que quel quelle quelles quels qui quoi s sa sans se ses
    si sien son sont sous suis sur t ta te tes toi ton tous tout toute toutes très tu un une unes uns vers
    voici voilà vos votre vous y à alors ainsi après avant bon cependant déjà doit doivent dois fais font
    ici là maintenant merci non oui puis sera seront serait soit sont tant toujours trop vais va vont
    veux voir vraiment faire fois chose choses rien quelque quelques certain certains certaines
    """
)
"""English and French function words, pronouns and filler verbs, lower-case."""

FILE_EXTENSIONS: frozenset[str] = _words(
    """
    py pyi pyx ipynb js jsx mjs cjs ts tsx vue svelte rs go java kt kts scala swift c h cc cpp cxx hpp hh cs
    fs rb php pl pm lua r jl dart ex exs erl hs ml clj sh bash zsh fish ps1 bat cmd sql cypher cql graphql
    proto md rst txt adoc tex json jsonl yaml yml toml ini cfg conf env properties xml html htm css scss
    sass less csv tsv parquet lock log gradle tf tfvars hcl dockerfile mk cmake patch diff pdf png jpg jpeg
    gif svg webp ico zip gz tgz bz2 xz jar war whl so dll dylib exe db sqlite pem crt key
    """
)
"""Extensions that make a bare word (no slash) count as a file name, lower-case."""

_SPECIAL_FILES = frozenset(
    {
        "Dockerfile",
        "Makefile",
        "Justfile",
        "Procfile",
        "Gemfile",
        "Rakefile",
        "Vagrantfile",
        "Jenkinsfile",
        "CMakeLists.txt",
        ".gitignore",
        ".gitattributes",
        ".dockerignore",
        ".editorconfig",
        ".env",
        ".bashrc",
        ".zshrc",
        ".npmrc",
        ".python-version",
    }
)
_NOT_FILES = frozenset(
    {
        "node.js",
        "next.js",
        "nuxt.js",
        "vue.js",
        "react.js",
        "express.js",
        "three.js",
        "chart.js",
        "d3.js",
        "nest.js",
        "deno.land",
        "e.g",
        "i.e",
    }
)

_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`([^`\n]{1,200})`")
_URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+")
_SENT_END_RE = re.compile(r"(?<=[.!?…])[\"'»)\]]*\s+(?=[^\s])")
_ABBREV_END_RE = re.compile(
    r"(?:^|\s)(?:e\.g|i\.e|etc|cf|vs|p\.ex|mr|mrs|dr|fig|approx|resp|c\.-à-d)\.$", re.IGNORECASE
)
_BULLET_RE = re.compile(r"^\s*(?:[-*•+>]|\d{1,3}[.)]|#{1,6})\s+")
_WORD_RE = re.compile(r"[^\W\d_][\w\-]*[^\W_]|[^\W\d_]", re.UNICODE)
_ELISION_RE = re.compile(r"\b(?:[ldjmnstc]|qu|jusqu|lorsqu|puisqu)['’]", re.IGNORECASE)
_WIN_PATH_RE = re.compile(
    r"(?<![\w])(?:[A-Za-z]:|\\\\[\w.\-$]+)\\+(?:[^\\/:*?\"<>|\s`'()\[\]{},;]+\\+)*[^\\/:*?\"<>|\s`'()\[\]{},;]*"
)
_TOKEN_RE = re.compile(r"[^\s\"'`()\[\]{}<>,;|=*!?]+")
_LINE_SUFFIX_RE = re.compile(r"(?:[:#]L?\d+(?:[-:]L?\d+)*)+$")
_SEGMENT_RE = re.compile(r"^[\w.\-@+~$%]+$", re.UNICODE)
_EXT_RE = re.compile(r"^(?P<stem>.*[^.])\.(?P<ext>[A-Za-z0-9_]{1,12})$")

_CUES_EN = (
    r"fix(?:ed|es|ing)?|bug|error|errors|exception|traceback|fail(?:s|ed|ing|ure)?|broke(?:n)?|crash(?:es|ed)?"
    r"|because|caused?|root cause|due to|decid(?:e|ed|ing)|decision|chose|choose|found|turns out|turned out"
    r"|resolv(?:e|ed|es)|solv(?:e|ed|es)|solution|workaround|conclusion|learned|important|note that|must"
    r"|instead|regression|works now|now works|passes|passed|issue"
)
_CUES_FR = (
    r"corrig(?:é|ée|és|er|e)|répar(?:é|ée|er)|résolu(?:e|s)?|résoudre|erreur(?:s)?|bogue|plant(?:e|é|age)"
    r"|échou(?:e|é|ent)|échec|parce que|car|à cause|cause|décid(?:é|er|e)|décision|choisi|trouvé|constaté"
    r"|solution|contournement|conclusion|important|il faut|finalement|au lieu|fonctionne maintenant|régression"
    r"|problème"
)
_CUE_RE = re.compile(rf"(?<![\w])(?:{_CUES_EN}|{_CUES_FR})(?![\w])", re.IGNORECASE)


def dedupe(items: Iterable[str], *, key: Any = None) -> list[str]:
    """Items in first-seen order without repeats (compared by ``key(item)`` if given)."""
    seen: set[Any] = set()
    out: list[str] = []
    for item in items:
        k = key(item) if key is not None else item
        if k in seen:
            continue
        seen.add(k)
        out.append(item)
    return out


def strip_code_blocks(text: str) -> str:
    """``text`` without fenced code blocks; inline code keeps its content."""
    text = _FENCE_RE.sub("\n", text)
    return _INLINE_CODE_RE.sub(r"\1", text)


def split_sentences(text: str) -> list[str]:
    """Sentences of prose: lines (bullets and headings stripped), then ``.!?…`` + space boundaries.

    A boundary right after a common abbreviation (``e.g.``, ``i.e.``, ``etc.``, ``cf.``...) is ignored.
    """
    out: list[str] = []
    for raw_line in text.splitlines():
        line = _BULLET_RE.sub("", raw_line).strip()
        if not line:
            continue
        pending = ""
        for part in _SENT_END_RE.split(line):
            part = part.strip()
            if not part:
                continue
            pending = f"{pending} {part}" if pending else part
            if not _ABBREV_END_RE.search(pending):
                out.append(pending)
                pending = ""
        if pending:
            out.append(pending)
    return out


def word_tokens(text: str) -> list[str]:
    """Lower-case word tokens (letters first, may contain digits, ``_``, ``-``); French elisions removed."""
    text = _ELISION_RE.sub(" ", text)
    return [m.group(0).lower() for m in _WORD_RE.finditer(text)]


def cue_count(sentence: str) -> int:
    """How many decision/finding cue words (EN+FR) ``sentence`` contains."""
    return len(_CUE_RE.findall(sentence))


def _strip_token(token: str) -> str:
    token = token.lstrip(":…").rstrip(".:…")
    token = _LINE_SUFFIX_RE.sub("", token)
    return token.rstrip(".:/")


def _has_letter(s: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") for ch in s)


def _is_bare_file(token: str) -> bool:
    if token in _SPECIAL_FILES:
        return True
    if token.lower() in _NOT_FILES:
        return False
    m = _EXT_RE.match(token)
    if m is None or not _SEGMENT_RE.match(token):
        return False
    return m.group("ext").lower() in FILE_EXTENSIONS and _has_letter(m.group("stem"))


def _is_slash_path(token: str) -> bool:
    if "/" not in token or "//" in token.lstrip("/"):
        return False
    prefixed = token.startswith(("/", "./", "../", "~/"))
    segments = [s for s in token.split("/") if s]
    if not segments or not all(_SEGMENT_RE.match(s) for s in segments):
        return False
    last = segments[-1]
    if not _has_letter(last):
        return False
    if _is_bare_file(last) or last in _SPECIAL_FILES:
        return True
    # no known extension: only clearly path-shaped tokens (./x/y, /usr/bin/env, ~/dir/file)
    if prefixed and (len(segments) >= 2 or token.startswith(("./", "../", "~/"))):
        return all(_has_letter(s) or s in (".", "..", "~") for s in segments)
    m = _EXT_RE.match(last)
    return m is not None and len(segments) >= 2 and m.group("ext").isalnum() and _has_letter(m.group("ext"))


def path_key(path: str) -> str:
    """The identity of a path for deduplication: no leading ``./``; Windows paths case-folded."""
    p = path[2:] if path.startswith("./") else path
    return p.replace("\\", "/").lower() if re.match(r"^[A-Za-z]:", p) else p


def extract_paths(text: str) -> list[str]:
    """File paths mentioned in ``text``, in order, deduplicated (``./a`` and ``a`` count once).

    Recognised: ``src/a.py``, ``./x/y.ts``, ``../lib/z``, ``/abs/path.rs``, ``~/notes.md``,
    ``C:\\dir\\file.cs``, ``\\\\server\\share\\f.txt``, ``src\\win.py``, and bare names with a known
    extension (``README.md``) or a well-known name (``Makefile``). URLs are ignored; ``:12`` /
    ``#L3`` line suffixes are dropped.
    """
    if not text:
        return []
    text = _URL_RE.sub(" ", text)
    found: list[str] = []
    for m in _WIN_PATH_RE.finditer(text):
        p = re.sub(r"\\{2,}", r"\\", m.group(0)) if not m.group(0).startswith("\\\\") else m.group(0)
        p = _strip_token(p)
        if len(p) > 3 and _has_letter(p[2:]):
            found.append(p)
    text = _WIN_PATH_RE.sub(" ", text)
    for m in _TOKEN_RE.finditer(text):
        token = m.group(0)
        pathish = "/" in token or "." in token or "\\" in token or token in _SPECIAL_FILES
        if len(token) > 300 or not pathish:
            continue
        candidates = [_strip_token(token)]
        if ":" in candidates[0]:
            candidates = [_strip_token(part) for part in candidates[0].split(":")]
        for cand in candidates:
            if not cand or len(cand) < 3:
                continue
            if "\\" in cand:
                parts = cand.split("\\")
                if len(parts) >= 2 and all(_SEGMENT_RE.match(s) for s in parts if s) and _is_bare_file(parts[-1]):
                    found.append(cand)
                continue
            if ("/" in cand and _is_slash_path(cand)) or ("/" not in cand and _is_bare_file(cand)):
                found.append(cand)
    return dedupe(found, key=path_key)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def extract_paths_from_args(args: Any) -> list[str]:
    """File paths in tool arguments: a JSON string is decoded and its string values scanned."""
    if args is None:
        return []
    if isinstance(args, str):
        stripped = args.strip()
        if stripped[:1] in ("{", "["):
            try:
                args = json.loads(stripped)
            except ValueError:
                return extract_paths(args)
        else:
            return extract_paths(args)
    out: list[str] = []
    for s in _strings(args):
        out.extend(extract_paths(s))
    return dedupe(out, key=path_key)
