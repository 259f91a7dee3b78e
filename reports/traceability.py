"""What the spec catalogs say about the tile operations: their ADRs, spec tests and families.

ADRs, spec tests and the links into the public specification repository, read
from ``contract/spec_data`` (never retyped). Shared by the Allure plugin and the
coverage report.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

from ..contract import spec_data

SPEC_REPOSITORY = "https://github.com/PTO-ISA/pto-spec"


@dataclass(frozen=True)
class Adr:
    id: str
    title: str
    status: str
    path: str

    @property
    def heading(self) -> str:
        """``ADR-0047 Numeric rounding semantics``: how reports name this ADR (Allure link names)."""
        return f"{self.id} {self.title}"

    @property
    def url(self) -> str:
        return spec_blob_url(self.path)


@dataclass(frozen=True)
class SpecTest:
    id: str
    kind: str
    summary: str
    pass_condition: str
    spec_test_file: str

    @property
    def url(self) -> str:
        return spec_blob_url(self.spec_test_file)


def spec_commit() -> str:
    return spec_data.load("tile-avs-catalog")["spec_commit"]


def spec_release() -> str:
    return spec_data.load("hardware-conformance-profile")["isa_release"]


def spec_blob_url(path: str) -> str:
    """A file of the specification at the pinned commit."""
    return f"{SPEC_REPOSITORY}/blob/{spec_commit()}/{path}"


def model_version() -> str:
    """The installed pto-avs distribution's version (what ran the golden model)."""
    try:
        return version("pto-avs")
    except PackageNotFoundError:
        return "unknown (pto-avs not installed)"


@lru_cache(maxsize=None)
def adrs() -> dict[str, Adr]:
    return {a["id"]: Adr(a["id"], a["title"], a["status"], a["path"])
            for a in spec_data.load("tile-avs-catalog")["adrs"]}


@lru_cache(maxsize=None)
def spec_tests() -> dict[str, SpecTest]:
    return {t["id"]: SpecTest(t["id"], t["kind"], t["summary"], t["pass_condition"],
                              t["spec_test_file"])
            for t in spec_data.load("tile-avs-catalog")["tests"]}


@lru_cache(maxsize=None)
def _units() -> dict[str, dict]:
    return {u["mnemonic"]: u for u in spec_data.load("tile-avs-catalog")["units"]}


def operations() -> tuple[str, ...]:
    """Every tile operation of the catalog, in its order."""
    return spec_data.operation_names()


def operation_family(operation: str) -> str:
    """The spec's family of an operation: the first part of its classification
    (``elementwise-tile-tile``, ``tile-scalar-and-immediate``, ...)."""
    return _units()[operation]["classification"][0]


def operation_adrs(operation: str) -> tuple[str, ...]:
    """ADR IDs an operation traces to (its catalog readiness subjects)."""
    return tuple(_units()[operation]["readiness_subjects"])


def operation_tests(operation: str) -> tuple[str, ...]:
    """Spec test IDs of an operation, as the catalog lists them."""
    return tuple(_units()[operation]["tests"])


def covered_adrs() -> tuple[str, ...]:
    """Every ADR that at least one operation traces to, sorted."""
    return tuple(sorted({a for op in operations() for a in operation_adrs(op)}))


def adr(adr_id: str) -> Adr:
    """The catalog's ADR record; an ADR the catalog does not know keeps its bare ID."""
    return adrs().get(adr_id) or Adr(adr_id, "(not in the spec catalog)", "unknown", "")
