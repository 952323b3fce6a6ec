"""Hypothesis strategies for hostile input: ids, paths, messages, queries, tool arguments.

Imported lazily (hypothesis is a ``dev`` dependency): only ``graphmem reliability hostile`` and
the tests use it. Every strategy is cheap to draw; huge strings are built by repetition.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = [
    "LUCENE_TOKENS",
    "SECRETS",
    "control_text",
    "hostile_bytes",
    "hostile_id",
    "hostile_json_value",
    "hostile_path_suffix",
    "hostile_query",
    "hostile_text",
    "huge_text",
    "lone_surrogates",
]

# Lucene query syntax and the characters it treats specially, plus a few classics of other parsers.
LUCENE_TOKENS = (
    "AND", "OR", "NOT", "&&", "||", "!", "+", "-", "(", ")", "{", "}", "[", "]", "^", '"', "~", "*", "?",
    ":", "\\", "/", "title:", "*:*", "a~2", "[a TO z]", "{1 TO 9}", "/re.*x/", "\"unterminated", "foo^10",
    "field:(a OR b)", "_exists_:x", "\\u0000", "%s", "{0}", "${jndi:ldap://x}", "'; DROP", "$param",
    "MATCH (n) DETACH DELETE n", "`", "//", "/*", "*/", "<script>", "\u202e", "\ufeff", "\u200b",
)

# Real-looking secrets of the kinds graphmem/redaction_rules.py recognises (all fake).
SECRETS = (
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk",
    "AKIAIOSFODNN7EXAMPLQ",
    "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "glpat-AbCdEf1234567890XyZw",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
)

_CONTROL = "".join(chr(c) for c in range(0, 32)) + "\x7f\x85\u2028\u2029"


def lone_surrogates() -> st.SearchStrategy[str]:
    return st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=4)


def control_text() -> st.SearchStrategy[str]:
    return st.text(alphabet=st.sampled_from(_CONTROL), min_size=1, max_size=20)


def huge_text(min_chars: int = 100_000, max_chars: int = 300_000) -> st.SearchStrategy[str]:
    """A large string made by repeating a small hostile piece (cheap to draw)."""
    return st.builds(
        lambda piece, n: (piece * (n // max(1, len(piece)) + 1))[:n],
        st.text(min_size=1, max_size=40).filter(lambda s: len(s) > 0),
        st.integers(min_value=min_chars, max_value=max_chars),
    )


def hostile_text(*, max_size: int = 300, huge: bool = True) -> st.SearchStrategy[str]:
    """Messages: any unicode (surrogates included), control characters, NUL, Lucene syntax,
    secrets, mixtures, and now and then a huge string."""
    pieces = st.one_of(
        st.text(max_size=max_size),
        st.text(alphabet=st.characters(codec=None), max_size=60),
        control_text(),
        lone_surrogates(),
        st.sampled_from(LUCENE_TOKENS),
        st.sampled_from(SECRETS),
        st.just("\x00"),
        st.just(""),
    )
    mixed = st.lists(pieces, min_size=1, max_size=6).map("".join)
    if not huge:
        return mixed
    # about one case in 40 is a huge string (100k-300k characters; 10 MB is tested in test_store)
    return st.integers(min_value=0, max_value=39).flatmap(lambda i: huge_text() if i == 0 else mixed)


def hostile_query() -> st.SearchStrategy[str]:
    """Search queries: Lucene syntax sequences, unbalanced quotes and brackets, huge strings."""
    lucene = st.lists(st.one_of(st.sampled_from(LUCENE_TOKENS), st.text(max_size=12)), min_size=1, max_size=12).map(
        " ".join
    )
    return st.one_of(lucene, lucene, hostile_text(max_size=120, huge=False),
                     huge_text(20_000, 200_000), st.just(""), st.just("   "), st.just("*"))


def hostile_id() -> st.SearchStrategy[str]:
    """Session/turn ids: empty, huge, NUL, surrogates, Lucene/Cypher-looking, path-like."""
    return st.one_of(
        st.text(max_size=40),
        st.text(min_size=500, max_size=600),
        st.sampled_from(["", " ", "\x00", "..", "/", "*", "' OR 1=1 --", "$id", "}) DETACH DELETE n //",
                         "\ud800", "a\x00b", "null", "None", "0"]),
        lone_surrogates(),
        st.sampled_from(LUCENE_TOKENS),
    )


def hostile_path_suffix() -> st.SearchStrategy[str]:
    """A path below the run's namespace: odd characters, spaces, unicode, dots (no ``..`` escape)."""
    seg = st.text(
        alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="/\x00"), min_size=1, max_size=20
    ).filter(lambda s: s not in (".", ".."))
    return st.lists(seg, min_size=1, max_size=4).map("/".join)


def hostile_bytes() -> st.SearchStrategy[bytes]:
    """File contents: random bytes, invalid UTF-8, JSON-ish garbage, NUL bytes, truncated JSON lines."""
    return st.one_of(
        st.binary(max_size=400),
        st.lists(st.sampled_from([b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\x00", b"{", b"}", b"\n", b'"', b"[",
                                  b'{"type": "user", "message": {"content": "', b"\\ud800", b"\r\n", b"\xef\xbb\xbf"]),
                 max_size=40).map(b"".join),
        st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    )


def hostile_json_value(depth: int = 3) -> st.SearchStrategy[Any]:
    """Tool-call arguments: nested JSON-like values with hostile strings and odd numbers."""
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True), hostile_text(max_size=60, huge=False),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(hostile_text(max_size=20, huge=False), children, max_size=4),
        ),
        max_leaves=12,
    )
