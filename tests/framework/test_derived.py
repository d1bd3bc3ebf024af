"""What a render derives from a whole object is kept by it (`ObjectModel.derived`), and by nothing else:
no table outlives the objects it is about, and a copy, a pickle or an equality never sees it."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import pulumi_kubeflow_trainer as kt
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.framework.compiled import CompiledRuntime
from pulumi_kubeflow_trainer.framework.framework import Framework
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins import default_registry
from tests.builders import make_runtime, make_trainjob


def runtime_model():  # type: ignore[no-untyped-def]
    (runtime,) = load(make_runtime("rt").torch().trainer().obj())
    return runtime


def test_a_value_is_computed_once_per_model() -> None:
    runtime = runtime_model()
    calls: list[object] = []
    assert runtime.derived("key", lambda model: calls.append(model) or len(calls)) == 1
    assert runtime.derived("key", lambda model: calls.append(model) or len(calls)) == 1
    assert calls == [runtime]


def test_copies_start_with_nothing_derived_and_compare_equal() -> None:
    runtime = runtime_model()
    compiled = CompiledRuntime.of(runtime)
    for copied in (runtime.model_copy(), runtime.model_copy(deep=True), copy.copy(runtime), pickle.loads(pickle.dumps(runtime))):
        assert copied == runtime and runtime == copied, "what is derived never makes two models differ"
        assert CompiledRuntime.of(copied) is not compiled and CompiledRuntime.of(copied).runtime is copied


def test_an_edited_copy_compiles_to_its_own_form() -> None:
    runtime = runtime_model()
    CompiledRuntime.of(runtime)
    renamed = runtime.model_copy(update={"metadata": runtime.metadata.model_copy(update={"name": "other"})})
    assert CompiledRuntime.of(renamed).key == ("ClusterTrainingRuntime", "", "other")


def test_the_compiled_form_goes_with_its_runtime_model() -> None:
    runtime = runtime_model()
    compiled = weakref.ref(CompiledRuntime.of(runtime))
    kt.render([runtime, make_trainjob().runtime_ref("rt").obj()])
    del runtime
    gc.collect()
    assert compiled() is None


def test_a_plan_goes_with_the_framework_that_made_it() -> None:
    compiled = CompiledRuntime.of(bundled_runtime("torch-distributed"))  # a runtime that lives as long as the process
    framework = Framework(default_registry(include_entry_points=False))
    plan = weakref.ref(framework.plan(compiled))
    assert framework.plan(compiled) is plan()
    del framework
    gc.collect()
    assert plan() is None
