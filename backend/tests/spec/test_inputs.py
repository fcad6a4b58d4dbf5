"""fields_of: a request that is a model but for a few fields takes the model's fields as they are."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from tracetax.spec.inputs import InputModel, fields_of


class Spec(InputModel):
    name: str
    rounds: int = Field(default=5, ge=1, le=50, description="Interleaved rounds.")
    sample_stacks: bool = Field(default=True, description="Sample stacks.")
    added_later: float | None = Field(default=None, gt=0)


def test_the_fields_are_the_models_in_its_order_but_those_left_out() -> None:
    part = fields_of(Spec, "Part", leave_out=("name",))
    assert list(part.model_fields) == ["rounds", "sample_stacks", "added_later"]
    assert issubclass(part, InputModel)
    assert part.model_validate({"added_later": 2}).model_dump() == {
        "rounds": 5,
        "sample_stacks": True,
        "added_later": 2,
    }


def test_bounds_and_unknown_keys_are_refused_naming_the_field() -> None:
    part = fields_of(Spec, "Part", leave_out=("name",))
    with pytest.raises(ValidationError) as refused:
        part.model_validate({"rounds": 0, "added_later": -1, "nmae": "x"})
    assert sorted((error["loc"], error["type"]) for error in refused.value.errors()) == [
        (("added_later",), "greater_than"),
        (("nmae",), "extra_forbidden"),
        (("rounds",), "greater_than_equal"),
    ]


def test_a_change_sets_what_it_names_and_keeps_the_rest() -> None:
    part = fields_of(Spec, "Part", change={"sample_stacks": Field(default=False, description="Off in a check.")})
    field = part.model_fields["sample_stacks"]
    assert (field.default, field.description) == (False, "Off in a check.")
    assert Spec.model_fields["sample_stacks"].default is True  # the model's own field is untouched
    rounds = part.model_json_schema()["properties"]["rounds"]
    assert (rounds["minimum"], rounds["maximum"], rounds["description"]) == (1, 50, "Interleaved rounds.")


def test_a_subclass_adds_its_own_fields_after_the_models() -> None:
    class Request(fields_of(Spec, "Part", leave_out=("name",))):  # type: ignore[misc]
        budget: float

    assert list(Request.model_fields)[-1] == "budget"
    assert isinstance(Request(budget=1), BaseModel)
