"""Sizes read one way everywhere: a launch form, a constraint and the quota check agree."""

from decimal import Decimal

import pytest

from app.tosca.units import SIZE_UNITS, format_size, parse_scalar, read_size, size_in_bytes


@pytest.mark.parametrize("typed", ["4 GB", "4GB", "4 gb", "4 Gb", " 4  GB ", "4.0 GB"])
def test_a_size_reads_the_same_for_a_constraint_and_for_quotas(typed):
    assert read_size(typed).bytes == parse_scalar(typed, "scalar-unit.size").base == 4 * 10**9


@pytest.mark.parametrize(("typed", "unit"), [("8 KB", "kB"), ("8 kib", "KiB"), ("1 tib", "TiB")])
def test_units_are_spelt_the_tosca_way_whoever_reads_them(typed, unit):
    assert read_size(typed).unit == parse_scalar(typed, "scalar-unit.size").unit == unit


def test_decimal_and_binary_units_are_exact_byte_counts():
    assert read_size("1.5 GiB").bytes == 3 * 2**29
    assert read_size("0.1 kB") == read_size(".1 kB") and read_size("0.1 kB").bytes == 100
    assert str(read_size("2.50 GiB")) == "2.5 GiB"
    assert all(read_size(f"1 {unit}").bytes == factor for unit, factor in SIZE_UNITS.items())


def test_a_bare_number_is_bytes_in_a_template_but_a_person_must_name_the_unit():
    assert size_in_bytes(2048) == size_in_bytes("2048") == 2048
    with pytest.raises(ValueError, match="number followed by a unit"):
        read_size("2048")
    with pytest.raises(ValueError, match="number followed by a unit"):
        parse_scalar("2048", "scalar-unit.size")


@pytest.mark.parametrize("bad", ["four GB", "4 GX", "-4 GB", "GB", "", True, None, [4]])
def test_what_is_not_a_size_is_refused_in_words_by_both_readings(bad):
    with pytest.raises(ValueError, match=r"\w+ \w+"):
        read_size(bad)
    with pytest.raises(ValueError, match=r"\w+ \w+"):
        parse_scalar(bad, "scalar-unit.size")


def test_an_unknown_unit_is_named_with_the_units_that_would_do():
    with pytest.raises(ValueError, match=r'unit "GX" is not one of: B, kB'):
        read_size("4 GX")
    with pytest.raises(ValueError, match=r'unit "GB" is not one of: d, h'):
        parse_scalar("4 GB", "scalar-unit.time")


def test_sizes_are_shown_in_the_unit_they_were_likely_written_in():
    assert format_size(8 * 10**9) == "8 GB"
    assert format_size(2 * 2**30) == "2 GiB"
    assert format_size(Decimal(1536) * 10**6) == "1.5 GB"
