"""The commands that start a spec saved as a file: `tracetax run` and curl, quoted for a shell."""

from __future__ import annotations

import shlex

from tracetax.app.spec_commands import SPEC_FILE, spec_commands


def test_the_commands_read_the_spec_file_and_post_it_to_the_api() -> None:
    commands = spec_commands("http://127.0.0.1:8000/")

    assert commands.file == SPEC_FILE == "spec.json"
    assert commands.cli == "tracetax run spec.json"
    assert commands.curl.split("\n") == [
        "curl -s -XPOST http://127.0.0.1:8000/api/v1/experiments \\",
        "  -H 'content-type: application/json' -d @spec.json",
    ]


def test_a_file_or_url_a_shell_would_split_is_quoted_as_one_word() -> None:
    commands = spec_commands("http://x/a b", "my spec's.json")

    assert commands.cli == "tracetax run 'my spec'\"'\"'s.json'"
    assert shlex.split(commands.cli) == ["tracetax", "run", "my spec's.json"]
    assert "-d @'my spec'\"'\"'s.json'" in commands.curl
    assert shlex.split(commands.curl.replace("\\\n", ""))[3] == "http://x/a b/api/v1/experiments"
