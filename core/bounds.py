"""The limits on what people hand pbm (move texts, deals and boards, options, salts), checked
before anything parses them: no input may exhaust the recursion limit, Python's 4,300-digit limit
on int(), or memory. Every front end reaches them (the table checks moves, deals and options; the
shells parse files with `parse_json`). Pure: it parses text it is given and never reads a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.contract import IllegalMove, SetupError

MAX_MOVE_CHARS = 200  # the longest legal move of the four games is under 80
MAX_COMMAND_ID_CHARS = 200
MAX_SALT_CHARS = 200
MAX_SALTS = 16
MAX_DOCUMENT_BYTES = 1_000_000  # a deal or a board (the shipped Holiday! board is 11 KB)
MAX_DEPTH = 16  # nesting of a deal or a board (the deepest format needs 4)
MAX_NUMBER_CHARS = 30  # a bid, a seat, a count: no game needs a longer number
SHOWN_CHARS = 60  # how much of a refused input an error quotes
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def shown(text: str) -> str:
    """`text` quoted for an error message, cut short if long."""
    return repr(text) if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]!r}… ({len(text)} characters)"


def check_move_text(text: Any) -> str:
    if not isinstance(text, str):
        raise IllegalMove(f"a move is text, not {type(text).__name__}")
    if len(text) > MAX_MOVE_CHARS:
        raise IllegalMove(f"a move is at most {MAX_MOVE_CHARS} characters, not {len(text)}")
    return text


def check_command_id(command_id: Any) -> None:
    if command_id is not None and (not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_COMMAND_ID_CHARS):
        raise IllegalMove(f"a command id is 1 to {MAX_COMMAND_ID_CHARS} characters, not {shown(str(command_id))}")


def check_salts(salts: Iterable[Any]) -> tuple[str, ...]:
    salts = tuple(salts)
    if len(salts) > MAX_SALTS:
        raise SetupError(f"at most {MAX_SALTS} salts, not {len(salts)}")
    for salt in salts:
        if not isinstance(salt, str) or not 0 < len(salt) <= MAX_SALT_CHARS or not salt.isprintable():
            text = shown(salt) if isinstance(salt, str) else repr(salt)
            raise SetupError(f"a salt is 1 to {MAX_SALT_CHARS} printable characters, not {text}")
    return salts


def parse_int(text: str, what: str) -> int:
    """A whole number written in decimal (an optional minus sign, then digits)."""
    digits = text.strip()
    if not re.fullmatch(r"-?[0-9]+", digits) or len(digits) > MAX_NUMBER_CHARS:
        raise SetupError(f"{what} is a whole number of at most {MAX_NUMBER_CHARS} digits, not {shown(text)}")
    return int(digits)


def text_of(data: bytes | str, what: str) -> str:
    """The UTF-8 text of a document (a file's bytes), within the size limit."""
    if len(data) > MAX_DOCUMENT_BYTES:
        raise SetupError(f"{what}: more than the {MAX_DOCUMENT_BYTES} bytes allowed")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SetupError(f"{what}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None


def parse_json(data: bytes | str, what: str) -> Any:
    """A JSON document (a deal, a board) within the limits; SetupError naming what is wrong."""
    data = text_of(data, what)
    _check_json_depth(data, what)

    def number(text: str) -> int:
        if len(text) > MAX_NUMBER_CHARS:
            raise SetupError(f"{what}: a number of {len(text)} digits (at most {MAX_NUMBER_CHARS})")
        return int(text)

    def no_fraction(text: str) -> Any:
        raise SetupError(f"{what}: {shown(text)} is not a whole number")

    try:
        return json.loads(data, parse_int=number, parse_float=no_fraction, parse_constant=no_fraction)
    except json.JSONDecodeError as error:
        raise SetupError(f"{what}: not valid JSON ({error})") from None


def _check_json_depth(text: str, what: str) -> None:
    depth = 0
    for bracket in re.findall(r"[\[\]{}]", _STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise SetupError(f"{what}: nested deeper than {MAX_DEPTH} levels")


def check_value(value: Any, what: str, depth: int = 0) -> None:
    """A deal or an option already parsed (from a JSON API, say) within the same limits."""
    if depth > MAX_DEPTH:
        raise SetupError(f"{what}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if value.bit_length() > 100:  # about 30 digits
            raise SetupError(f"{what}: a number too large (at most {MAX_NUMBER_CHARS} digits)")
    elif isinstance(value, str):
        if len(value) > MAX_DOCUMENT_BYTES:
            raise SetupError(f"{what}: a text of {len(value)} characters, more than the {MAX_DOCUMENT_BYTES} allowed")
    elif isinstance(value, Mapping):
        if len(value) > MAX_DOCUMENT_BYTES // 8:
            raise SetupError(f"{what}: too many entries ({len(value)})")
        for key, item in value.items():
            check_value(key, what, depth + 1)
            check_value(item, what, depth + 1)
    elif isinstance(value, list | tuple):
        if len(value) > MAX_DOCUMENT_BYTES // 8:
            raise SetupError(f"{what}: too many entries ({len(value)})")
        for item in value:
            check_value(item, what, depth + 1)
