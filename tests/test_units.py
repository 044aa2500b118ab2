import pytest
from hypothesis import given
from hypothesis import strategies as st

from cellblade.units import COUNT_MULTIPLIERS, SIZE_MULTIPLIERS, parse_count, parse_size


@pytest.mark.parametrize(
    "text, expected",
    [("128", 128), ("16k", 16384), ("16K", 16384), ("2k", 2048), ("1m", 1 << 20), (" 32 ", 32)],
)
def test_sizes_use_binary_multipliers(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    "text, expected", [("100", 100), ("1k", 1000), ("100k", 100_000), ("1m", 1_000_000)]
)
def test_counts_use_decimal_multipliers(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize("text", ["", "k", "1.5k", "-3", "12x", "1g", "0x10", "1 k", "²"])
def test_bad_numbers_name_the_value_and_the_form(text):
    with pytest.raises(ValueError, match=r"invalid value .*: expected a size .*k=1024"):
        parse_size(text)
    with pytest.raises(ValueError, match=r"invalid value .*: expected a count .*k=1000"):
        parse_count(text)


@given(st.integers(0, 10**9), st.sampled_from(["", "k", "K", "m", "M"]))
def test_multiplier_scales_the_number(number, suffix):
    assert parse_size(f"{number}{suffix}") == number * SIZE_MULTIPLIERS[suffix.lower()]
    assert parse_count(f"{number}{suffix}") == number * COUNT_MULTIPLIERS[suffix.lower()]
