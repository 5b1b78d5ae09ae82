"""Reads whose SQL the ORM writes once per process, then run with each call's values.

Building a queryset costs Django a few tenths of a millisecond every time (resolving lookups,
joins, compiling), several times what running one of the small reads of a page costs. The reads
every page makes (the gate's entitlements, the products' rows, a section's answers) are written
as ordinary querysets and compiled once per database:

    ANSWERS = Prepared(
        CheckAnswer,
        lambda slug, user: CheckAnswer.objects.filter(unit_slug=slug, user_id=user),
        "stand-in slug", 2_147_480_009,
    )
    ANSWERS.objects("attention-and-transformers", request.user.pk)   # model instances
    ENTITLED.rows(user.pk, 18)                                       # a values_list's tuples

``make`` builds the queryset from its parameters. It is compiled with the stand-in values,
each of which must come back exactly once among the SQL's parameters (checked when compiled);
each call's own values then take their places, prepared as the stand-ins were (a UUID as the
database takes it). The query's other parameters (its constants) stay as compiled. Stand-ins
must be values their fields can hold (Django drops a comparison with an impossible value, a
negative number for a positive field), distinct, and unlike any constant of the query.

Running it: Django's cursor wrapper costs more than the small read it runs (about 40 µs of
its ~95 on SQLite: the execute wrappers, the conversion of ``%s`` to ``?`` on every call). Where
nothing watches the queries (no debug cursor: DEBUG off and no ``assertNumQueries`` or
``CaptureQueriesContext``; no execute wrapper installed), a prepared read hands its SQL straight
to the driver's cursor, already in the driver's style, inside Django's own error translation
(``wrap_database_errors``: a database error is Django's ``DatabaseError`` as before) and after
Django's check of a broken transaction. Otherwise it goes through Django's cursor as any query.

Below the apps: billing and learning import it; it imports neither.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, router
from django.db.backends.sqlite3.base import FORMAT_QMARK_REGEX, Database
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)

# How a call's value goes into a slot: as it is, as a UUID's hex (SQLite), in the type the
# database driver was given (PostgreSQL's Int2, Int4... for integer fields), or not at all (a
# constant of the query, kept as compiled).
_AS_IS, _HEX, _TYPED, _CONSTANT = "as is", "hex", "typed", "constant"


class Prepared(Generic[M]):
    def __init__(
        self, model: type[M], make: Callable[..., QuerySet[M] | QuerySet[Any]], *stand_ins: Any
    ) -> None:
        self.model = model
        self.make = make
        self.stand_ins = stand_ins
        self._compiled: dict[str, tuple[str, tuple[tuple[str, Any, type], ...]]] = {}
        self._init: dict[str, tuple[list[str], list[Any]] | None] = {}
        self._converters: dict[str, tuple[Any, list[tuple[int, list[Any], Any]]]] = {}
        self._lock = threading.Lock()

    def _slot(self, param: Any) -> tuple[str, Any, type]:
        for i, stand_in in enumerate(self.stand_ins):
            if type(param) is type(stand_in) and param == stand_in:
                return (_AS_IS, i, type(param))
            if isinstance(stand_in, uuid.UUID) and param == stand_in.hex:
                return (_HEX, i, str)
            if _is_int(stand_in) and _is_int(param) and int(param) == stand_in:
                return (_TYPED, i, type(param))
        return (_CONSTANT, param, type(param))

    def compiled(self, alias: str) -> tuple[str, tuple[tuple[str, Any, type], ...]]:
        """(SQL, its parameters' slots) for database ``alias``, compiled on first use."""
        found = self._compiled.get(alias)
        if found is None:
            query = self.make(*self.stand_ins).query
            try:
                sql, params = query.get_compiler(using=alias).as_sql()
            except (EmptyResultSet, FullResultSet) as exc:
                raise ValueError(
                    f"a stand-in of {self.stand_ins!r} left the query without a condition"
                ) from exc
            slots = tuple(self._slot(p) for p in params)
            used = sorted(i for how, i, _ in slots if how != _CONSTANT)
            if used != list(range(len(self.stand_ins))):
                raise ValueError(
                    f"each stand-in of {self.stand_ins!r} must be one parameter of {params!r}"
                )
            found = (str(sql), slots)
            with self._lock:
                self._compiled[alias] = found
        return found

    def _sql(self, values: tuple[Any, ...]) -> tuple[str, str, list[Any]]:
        if len(values) != len(self.stand_ins):
            raise TypeError(f"{len(self.stand_ins)} values expected, got {len(values)}")
        alias = router.db_for_read(self.model)
        sql, slots = self.compiled(alias)
        params = [_param(how, value, kind, values) for how, value, kind in slots]
        return alias, sql, params

    def _fetch(self, alias: str, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        """Every row of the SQL with these parameters (the module's docstring: how it runs)."""
        rows = run(alias, sql, params, fetch=True)
        assert isinstance(rows, list)
        return rows

    def rows(self, *values: Any) -> list[tuple[Any, ...]]:
        """The rows as the database returns them (a values_list queryset: its fields in order;
        no field converters are applied)."""
        return self._fetch(*self._sql(values))

    def objects(self, *values: Any) -> list[M]:
        """The model instances, as the queryset would give them (fields converted): made as a
        raw queryset makes them (Model.from_db, each field's converters), without its work of
        matching the cursor's columns to the fields on every call."""
        alias, sql, params = self._sql(values)
        connection = connections[alias]
        init = self._init.get(alias)
        if init is None:
            init = self._init[alias] = self._model_init(alias)
        if not init:  # not every field, in order: the raw queryset matches them
            return list(self.model._default_manager.db_manager(alias).raw(sql, params))
        names, cols = init
        kept = self._converters.get(alias)
        if kept is None or kept[0] is not connection:
            converters = []
            for i, col in enumerate(cols):
                found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                if found:
                    converters.append((i, found, col))
            kept = self._converters[alias] = (connection, converters)
        rows = self._fetch(alias, sql, params)
        out = []
        for row in rows:
            if kept[1]:
                cells = list(row)
                for i, found, col in kept[1]:
                    value = cells[i]
                    for converter in found:
                        value = converter(value, col, connection)
                    cells[i] = value
                row = tuple(cells)
            out.append(self.model.from_db(alias, names, row))
        return out

    def _model_init(self, alias: str) -> tuple[list[str], list[Any]] | None:
        """(attnames, columns) of the model's fields when the SQL selects each of them in order,
        else None."""
        compiler = self.make(*self.stand_ins).query.get_compiler(using=alias)
        compiler.setup_query()
        fields = self.model._meta.concrete_fields
        cols = [expression for expression, _, _ in compiler.select]
        if [getattr(c, "target", None) for c in cols] != list(fields):
            return None
        return [f.attname for f in fields], cols


def run(alias: str, sql: str, params: list[Any], *, fetch: bool) -> list[tuple[Any, ...]] | int:
    """Run SQL written once (``%s`` placeholders) with these parameters on database ``alias``:
    its rows (fetch) or the number of rows it changed. Straight to the driver's cursor where
    nothing watches the queries, else through Django's (the module's docstring)."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        if connection.queries_logged or connection.execute_wrappers:
            cursor.execute(sql, params)  # Django's way: logged, wrapped
            return list(cursor.fetchall()) if fetch else int(cursor.rowcount)
        driver_sql = _DRIVER_SQL.get((connection.vendor, sql))
        if driver_sql is None:
            driver_sql = _DRIVER_SQL[(connection.vendor, sql)] = _in_driver_style(
                connection.vendor, sql
            )
        connection.validate_no_broken_transaction()
        with connection.wrap_database_errors:
            inner = cursor.cursor
            if connection.vendor == "sqlite":  # its wrapper would convert the SQL again
                Database.Cursor.execute(inner, driver_sql, params)
            else:
                inner.execute(driver_sql, params)
            return list(inner.fetchall()) if fetch else int(inner.rowcount)


# (vendor, Django's SQL) -> the driver's: a few entries, one per prepared read or statement.
_DRIVER_SQL: dict[tuple[str, str], str] = {}


def _in_driver_style(vendor: str, sql: str) -> str:
    """Django's SQL (``%s`` placeholders) as the database driver takes it: SQLite's qmarks, as
    Django's SQLite cursor converts it on every call; the others take Django's style."""
    if vendor == "sqlite":
        return FORMAT_QMARK_REGEX.sub("?", sql).replace("%%", "%")
    return sql


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _param(how: str, value: Any, kind: type, values: tuple[Any, ...]) -> Any:
    if how == _CONSTANT:
        return value
    given = values[value]
    if given is None:
        return None
    if how == _HEX:
        return given.hex
    if how == _TYPED:
        return kind(given)
    return given
