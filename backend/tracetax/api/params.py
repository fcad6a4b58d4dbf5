"""Constraints shared by the routes' free-text query parameters.

Text that reaches a database query must not hold a NUL character: PostgreSQL's text cannot
store one, so psycopg refuses the whole statement (a 500 where SQLite simply matched nothing).
The pattern makes it the 422 naming the parameter that every other bad value gets.
"""

from __future__ import annotations

from typing import Any

NO_NUL = r"^[^\x00]*$"
# Free text compared with stored values: a branch, a configuration, a service.
TEXT: dict[str, Any] = {"pattern": NO_NUL, "max_length": 512}
# The same, never empty.
NAME: dict[str, Any] = {**TEXT, "min_length": 1}
