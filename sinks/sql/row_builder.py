"""Records built from the store's own rows without pydantic's validation, equal to validated ones.

Recall turns tens of memory and episode rows into records on each request. Each value of those rows
already has its field's type (the columns' processors give it: aware UTC datetimes, parsed JSON,
bools, floats) and was validated when its record was written; what validating the row again still
changes is only the enum strings, which become members. `row_builder` does that and sets the
instance up the way pydantic does (`model_construct`'s attributes, every field set), at a fraction
of validation's cost (`docs/benchmarks.md`).

That is only right for a model whose validation changes nothing else: no validators, no config that
rewrites values, fields of the types a row gives as they are. `row_builder` checks the model when it
is made and refuses one it cannot build like validation would, so a model change fails at import,
not in a recall. A row short of a field, or a value that is no member of its field's enum, is handed
to validation, which answers as it always did. Constraints (`ge`, `le`, lengths) are not checked
again: the rows were written from validated records. Use it for rows read from the store's own
tables, never for input from outside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from annotated_types import BaseMetadata
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

#: Field types whose row values validation gives back equal and of the same type (the store's columns
#: give these types: a Double column floats, a JSON column fresh lists and dicts, a Boolean bools).
AS_THEY_ARE = frozenset(
    {
        str,
        int,
        float,
        bool,
        datetime,
        str | None,
        int | None,
        float | None,
        datetime | None,
        list[str],
        dict[str, str] | None,
    }
)
#: Config keys that change no value (`extra` only when it keeps no extra).
_QUIET_CONFIG = frozenset({"frozen", "extra", "title"})


def row_builder(model: type[M]) -> Callable[[Sequence[Any]], M]:
    """What builds `model` records from rows whose first values are its fields in order
    (`model.model_fields`; extra trailing values are ignored), each equal to validating its row.

    A closure over locals, not a method: it runs on tens of rows per recall."""
    if reasons := unbuildable(model):
        raise TypeError(
            f"{model.__name__} records cannot be built from rows without validation: {'; '.join(reasons)}"
        )
    fields = tuple(model.model_fields)
    all_set = frozenset(fields)
    count = len(fields)
    enums = [
        (name, f.annotation._value2member_map_)
        for name, f in model.model_fields.items()
        if _is_enum(f.annotation)
    ]
    validate: Callable[[dict[str, Any]], M] = model.__pydantic_validator__.validate_python
    new = object.__new__  # BaseModel's own
    setattr_ = object.__setattr__  # past the frozen model's refusal, as pydantic itself does

    def build(values: Sequence[Any]) -> M:
        data = dict(zip(fields, values, strict=False))
        if len(data) != count:  # a row short of a field: validation's default, or its error
            return validate(data)
        try:
            for name, members in enums:
                data[name] = members[data[name]]
        except (KeyError, TypeError):  # not a member (or unhashable): validation says why
            return validate(data)
        record = new(model)
        setattr_(record, "__dict__", data)
        setattr_(record, "__pydantic_fields_set__", set(all_set))
        setattr_(record, "__pydantic_extra__", None)
        setattr_(record, "__pydantic_private__", None)
        return record

    return build


def unbuildable(model: type[BaseModel]) -> list[str]:
    """Why records of `model` built from rows could differ from validated ones (empty: they cannot)."""
    reasons = []
    decorators = model.__pydantic_decorators__
    if (
        decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        reasons.append("it has validators")
    if model.__pydantic_post_init__ or model.__private_attributes__ or model.__pydantic_root_model__:
        reasons.append("it has a post-init, private attributes or a root")
    config = model.model_config
    if set(config) - _QUIET_CONFIG or config.get("extra") == "allow":
        reasons.append(f"its config may change values ({', '.join(sorted(config))})")
    for name, field in model.model_fields.items():
        if field.alias is not None or field.validation_alias is not None:
            reasons.append(f"{name} has an alias")
        if not (_is_enum(field.annotation) or field.annotation in AS_THEY_ARE):
            reasons.append(f"{name} is a {field.annotation!r}, which validation may convert")
        if any(not isinstance(item, BaseMetadata) for item in field.metadata):
            reasons.append(f"{name} has metadata other than constraints")
    return reasons


def _is_enum(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Enum)
