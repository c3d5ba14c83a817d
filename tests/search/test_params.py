"""The search's named parameters (engine/search/params.py): the record's fields are generated
from PARAMS, so no name can point at another's value whatever the order; setting by name
refuses unknown names; the playout rules come from the named fields; the compiled search
reads no parameter by position."""
import re
from pathlib import Path

import pytest

from engine.play.player import Engine, Settings
from engine.search import mcts
from engine.search import params as params_mod
from engine.search.params import (PARAMS, Params, default_params, parse_setting, playout_rules,
                                  with_params)
from policies.kernel import RULE_FIGHTS, RULE_LADDERS, RULE_NAKADE


def test_every_entry_of_params_is_the_field_of_its_name_with_its_default():
    assert Params._fields == tuple(name for name, _, _ in PARAMS)
    assert len(set(Params._fields)) == len(PARAMS)
    defaults = default_params()
    for name, default, meaning in PARAMS:
        assert getattr(defaults, name) == default, name
        assert type(getattr(defaults, name)) is float, name
        assert meaning, name


def test_setting_by_name_changes_that_field_alone_and_refuses_unknown_names():
    base = default_params()
    for i, name in enumerate(Params._fields):
        changed = with_params(base, **{name: 1000 + i})
        assert getattr(changed, name) == 1000.0 + i and type(getattr(changed, name)) is float
        assert [getattr(changed, n) for n in Params._fields if n != name] == \
            [getattr(base, n) for n in Params._fields if n != name]
    with pytest.raises(KeyError, match="uct_k"):
        with_params(base, uct_c=1.0, uct_k=1.0)
    assert base == default_params()


def test_the_engine_sets_and_lists_parameters_by_name():
    engine = Engine(5, 0.5, Settings(playouts=10))
    engine.set_param("rave_equiv", 123)
    assert engine.params()["rave_equiv"] == 123.0 == engine.settings.params.rave_equiv
    assert list(engine.params()) == [name for name, _, _ in PARAMS]
    with pytest.raises(KeyError, match="no_such_param"):
        engine.set_param("no_such_param", 1.0)


def test_the_playout_rules_come_from_the_named_fields():
    p = with_params(default_params(), playout_ladders=0.25, playout_fights=0.5,
                    playout_nakade=0.75)
    rules = playout_rules(p)
    assert rules[RULE_LADDERS] == 0.25 and rules[RULE_FIGHTS] == 0.5 and rules[RULE_NAKADE] == 0.75


@pytest.mark.parametrize("module", [mcts, params_mod])
def test_compiled_code_reads_parameters_by_name_only(module):
    source = Path(module.__file__).read_text()
    assert not re.search(r"\bparams\[", source)
    assert not re.search(r"\bP_[A-Z]", source)


@pytest.mark.parametrize("text, expected", [("uct_c=0.3", ("uct_c", 0.3)),
                                            ("playout_fights=1", ("playout_fights", 1.0))])
def test_parse_setting_reads_name_and_value(text, expected):
    assert parse_setting(text) == expected


@pytest.mark.parametrize("text", ["uct_c", "uct_c=", "uct_c=x", "no_such=1", "=1"])
def test_parse_setting_refuses_bad_text_by_name(text):
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        parse_setting(text)
