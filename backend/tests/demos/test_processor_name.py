"""The processor in words is the one of the service's language: `agent` is a different program
for each (a Node service's recommendation once read "the OpenTelemetry Java agent")."""

from tracetax.demos.zero_code import processor_name


def test_agent_is_named_for_the_language() -> None:
    assert processor_name("agent", "java") == "the OpenTelemetry Java agent"
    assert "auto-instrumentations-node" in processor_name("agent", "node")
    assert "opentelemetry-instrument" in processor_name("agent", "python")
    assert "Java" not in processor_name("agent", "other")


def test_sdk_processors_are_named_alike_in_every_language() -> None:
    assert processor_name("batch", "node") == processor_name("batch", "go") == "BatchSpanProcessor"
    assert processor_name("custom", "go") == "custom"
