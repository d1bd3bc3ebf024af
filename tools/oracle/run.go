package main

// One input (a multi-document YAML stream) through upstream: admission of every document, then for
// each TrainJob the validating webhook and the controller's NewObjects, with a controller-runtime
// fake client holding the other objects, as upstream's pkg/runtime/core/*_test.go do.

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configapi "github.com/kubeflow/trainer/v2/pkg/apis/config/v1alpha1"
	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	trainerruntime "github.com/kubeflow/trainer/v2/pkg/runtime"
	runtimecore "github.com/kubeflow/trainer/v2/pkg/runtime/core"
	testingutil "github.com/kubeflow/trainer/v2/pkg/util/testing"
	"github.com/kubeflow/trainer/v2/pkg/util/trainjob"
	"github.com/kubeflow/trainer/v2/pkg/webhooks"
)

// Result is what upstream answers for one input: the objects the controller applies, or why the
// input is refused (admission, webhook or controller error), or the panic it hits.
type Result struct {
	Objects  []map[string]any `json:"objects"`
	Errors   []string         `json:"errors,omitempty"`
	Stage    string           `json:"stage,omitempty"` // admission | webhook | controller | panic
	Warnings []string         `json:"warnings,omitempty"`
	Panic    string           `json:"panic,omitempty"`
}

// scenario is the input after admission: what exists in the cluster, and the TrainJobs to create.
type scenario struct {
	objects   []client.Object
	trainJobs []*trainer.TrainJob
	warnings  []string
}

// clusterScoped kinds get no default namespace.
var clusterScoped = map[string]bool{
	"ClusterTrainingRuntime": true, "PriorityClass": true, "Namespace": true, "Node": true,
	"StorageClass": true, "RuntimeClass": true, "CustomResourceDefinition": true,
}

type oracle struct {
	scheme       *runtime.Scheme
	clientScheme *runtime.Scheme // the scheme of upstream's test client (testingutil.NewClientBuilder)
	restMapper   meta.RESTMapper // the fake client's default mapper for that scheme
	// the fake client's default type converters
	typeConverters []managedfields.TypeConverter
	crds           crdSet
	cfg            configapi.Configuration
}

// admitAll admits every document; the first refusal refuses the input (kubectl apply would stop
// with an error too, and `trainjob render` refuses the whole input).
func (o *oracle) admitAll(ctx context.Context, docs [][]byte) (*scenario, *Result) {
	sc := &scenario{}
	var errs []string
	for i, doc := range docs {
		where := fmt.Sprintf("document %d", i+1)
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(doc); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		where = fmt.Sprintf("%s (%s/%s)", where, u.GetKind(), u.GetName())
		gvk := u.GroupVersionKind()
		if crd, ok := o.crds[gvk]; ok && gvk.Group == trainer.GroupVersion.Group {
			admitted, ferrs := crd.admit(ctx, u.Object)
			if len(ferrs) > 0 {
				errs = append(errs, prefixed(where, ferrs.ToAggregate().Error())...)
				continue
			}
			typed, err := o.typed(gvk, admitted.Object)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", where, err))
				continue
			}
			switch obj := typed.(type) {
			case *trainer.TrainJob:
				sc.trainJobs = append(sc.trainJobs, obj)
			case *trainer.TrainingRuntime:
				warnings, err := (&webhooks.TrainingRuntimeValidator{}).ValidateCreate(ctx, obj)
				sc.warnings = append(sc.warnings, warnings...)
				if err != nil {
					errs = append(errs, prefixed(where, err.Error())...)
					continue
				}
				sc.objects = append(sc.objects, obj)
			case *trainer.ClusterTrainingRuntime:
				warnings, err := (&webhooks.ClusterTrainingRuntimeValidator{}).ValidateCreate(ctx, obj)
				sc.warnings = append(sc.warnings, warnings...)
				if err != nil {
					errs = append(errs, prefixed(where, err.Error())...)
					continue
				}
				sc.objects = append(sc.objects, obj)
			}
			continue
		}
		if !o.scheme.Recognizes(gvk) {
			errs = append(errs, fmt.Sprintf("%s: no matches for kind %q in version %q", where, gvk.Kind, gvk.GroupVersion().String()))
			continue
		}
		if u.GetNamespace() == "" && !clusterScoped[gvk.Kind] {
			u.SetNamespace("default")
		}
		typed, err := o.typed(gvk, u.Object)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		sc.objects = append(sc.objects, typed.(client.Object))
	}
	if len(errs) > 0 {
		return nil, &Result{Errors: errs, Stage: "admission", Warnings: sc.warnings}
	}
	return sc, nil
}

func (o *oracle) typed(gvk schema.GroupVersionKind, obj map[string]any) (runtime.Object, error) {
	typed, err := o.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return typed, nil
}

func prefixed(where, message string) []string {
	message = strings.TrimSuffix(strings.TrimPrefix(message, "["), "]")
	var out []string
	for _, part := range strings.Split(message, ", spec") {
		if len(out) > 0 {
			part = "spec" + part
		}
		out = append(out, where+": "+part)
	}
	return out
}

// runOnce creates the runtimes and the controller's framework afresh (a controller start: upstream
// orders its plugins by Go map iteration, so each start may order them differently), then admits
// and reconciles each TrainJob.
func (o *oracle) runOnce(ctx context.Context, sc *scenario) (result Result) {
	result.Warnings = append([]string(nil), sc.warnings...)
	result.Objects = []map[string]any{}
	// upstream's testingutil.NewClientBuilder(), with its scheme and the fake client's default REST
	// mapper built once rather than per run (they are the same every time, and most of the cost)
	builder := fake.NewClientBuilder().WithScheme(o.clientScheme).WithRESTMapper(o.restMapper).WithTypeConverters(o.typeConverters...)
	for _, obj := range sc.objects {
		builder.WithObjects(obj.DeepCopyObject().(client.Object))
	}
	c := &recordingClient{WithWatch: builder.Build()}
	defer func() {
		if r := recover(); r != nil {
			result = Result{Objects: []map[string]any{}, Stage: "panic", Panic: panicText(r), Warnings: result.Warnings}
		}
	}()
	runtimes, err := runtimecore.New(ctx, c, testingutil.AsIndex(builder), &o.cfg)
	if err != nil {
		return Result{Errors: []string{err.Error()}, Stage: "controller"}
	}
	for _, tj := range sc.trainJobs {
		where := fmt.Sprintf("TrainJob/%s", tj.Name)
		key := trainerruntime.RuntimeRefToRuntimeRegistryKey(tj.Spec.RuntimeRef)
		rt, ok := runtimes[key]
		if !ok {
			return Result{Errors: []string{fmt.Sprintf("%s: unsupported runtime: %s", where, key)}, Stage: "webhook", Warnings: result.Warnings}
		}
		warnings, errs := rt.ValidateObjects(ctx, nil, tj.DeepCopy())
		result.Warnings = append(result.Warnings, warnings...)
		if len(errs) > 0 {
			return Result{Errors: fieldErrors(where, errs), Stage: "webhook", Warnings: result.Warnings}
		}
		if trainjob.IsManagedByExternalController(tj) {
			continue // the controller leaves it alone
		}
		c.applied = nil
		objs, err := rt.NewObjects(ctx, tj.DeepCopy())
		if err != nil {
			return Result{Errors: []string{fmt.Sprintf("%s: %v", where, err)}, Stage: "controller", Warnings: result.Warnings}
		}
		result.Objects = append(result.Objects, c.applied...)
		for _, obj := range objs {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return Result{Errors: []string{fmt.Sprintf("%s: %v", where, err)}, Stage: "controller", Warnings: result.Warnings}
			}
			result.Objects = append(result.Objects, m)
		}
	}
	return result
}

func fieldErrors(where string, errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, err := range errs {
		out = append(out, where+": "+err.Error())
	}
	return out
}

// panicText is the panic's value and the first frame of upstream's code it went through.
func panicText(r any) string {
	text := fmt.Sprint(r)
	if err, ok := r.(goruntime.Error); ok {
		text = err.Error()
	}
	lines := strings.Split(string(debug.Stack()), "\n")
	for i, line := range lines {
		if strings.Contains(line, "kubeflow/trainer/v2/pkg/") && i+1 < len(lines) && !strings.Contains(line, "recover") {
			return text + " at " + strings.TrimSpace(strings.Split(lines[i+1], " +")[0])
		}
	}
	return text
}

// recordingClient is the fake client with two changes: reads keep apiVersion and kind (the real
// client's objects carry them, and the runtime snapshot serialises the runtime as read; the fake
// client drops them), and every server-side apply is recorded instead of stored (the snapshot
// ConfigMap is applied inside NewObjects, not returned by it).
type recordingClient struct {
	client.WithWatch
	applied []map[string]any
}

func (c *recordingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.WithWatch.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if gvk, err := apiutil.GVKForObject(obj, c.Scheme()); err == nil {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return nil
}

func (c *recordingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	// Recorded, not stored: nothing reads an applied object back within one reconcile, and each run
	// starts from a fresh client (the fake tracker's Apply builds a REST mapper per call: most of
	// the oracle's time).
	c.applied = append(c.applied, m)
	return nil
}

// render runs an input `runs` times and returns upstream's distinct answers, first seen first.
func (o *oracle) render(ctx context.Context, data []byte, runs int, mask bool) []Result {
	docs, err := splitYAML(data)
	if err != nil {
		return []Result{{Objects: []map[string]any{}, Errors: []string{err.Error()}, Stage: "admission"}}
	}
	sc, refused := o.admitAll(ctx, docs)
	if refused != nil {
		refused.Objects = []map[string]any{}
		return []Result{*refused}
	}
	var variants []Result
	seen := map[string]bool{}
	for range max(runs, 1) {
		result := o.runOnce(ctx, sc)
		if mask {
			maskSecrets(result.Objects)
		}
		key, _ := json.Marshal(result)
		if !seen[string(key)] {
			seen[string(key)] = true
			variants = append(variants, result)
		}
	}
	return variants
}

// maskSecrets replaces the data of Secrets (random SSH keys, Flux's CURVE certificate) by a marker.
func maskSecrets(objects []map[string]any) {
	for _, obj := range objects {
		if obj["kind"] != "Secret" {
			continue
		}
		if data, ok := obj["data"].(map[string]any); ok {
			for k := range data {
				data[k] = "<generated>"
			}
		}
	}
}

var _ = corev1.SchemeGroupVersion
