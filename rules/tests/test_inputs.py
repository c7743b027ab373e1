"""One input schema for the form and the API (rules.inputs)."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict
from rest_framework import serializers

from rules.errors import DropshipError
from rules.inputs import FacesField, validated


class Roll(serializers.Serializer[Any]):
    faces = FacesField()


@pytest.mark.parametrize(("data", "faces"), [({"faces": [5, 4]}, [5, 4]), ({}, None), ({"faces": None}, None)])
def test_json_faces_are_a_list(data: dict[str, Any], faces: list[int] | None) -> None:
    assert validated(Roll, data) == {"faces": faces}


@pytest.mark.parametrize(("text", "faces"), [("5, 4", [5, 4]), ("5 4", [5, 4]), ("", None)])
def test_a_forms_faces_are_one_text_input(text: str, faces: list[int] | None) -> None:
    assert validated(Roll, QueryDict(f"faces={text}")) == {"faces": faces}


def test_a_bad_value_is_refused_naming_the_field() -> None:
    with pytest.raises(DropshipError) as caught:
        validated(Roll, QueryDict("faces=5,x"))
    assert caught.value.field == "faces" and caught.value.status == 400 and caught.value.message.startswith("faces: ")
