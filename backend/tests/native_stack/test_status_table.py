"""`make status` (`tracetax stack status`) shows each component's URL without credentials."""

from __future__ import annotations

from tracetax.native_stack.supervisor import ComponentStatus, format_table


def test_the_status_table_shows_no_credential_of_a_url() -> None:
    rows = [
        ComponentStatus("tempo", "http://reader:hunter2@127.0.0.1:3200", True),
        ComponentStatus("mimir", "http://127.0.0.1:9009/?token=hunter2", False, "not running"),
    ]
    table = format_table(rows)
    assert "hunter2" not in table and "reader" not in table, table
    assert "http://127.0.0.1:3200" in table and "http://127.0.0.1:9009/?token=***" in table
