// Command oracle answers what upstream Kubeflow Trainer v2.3.0 does with the same multi-document
// YAML that `trainjob render` reads: the objects its controller applies for each TrainJob, or its
// refusal, computed by upstream's own code (admission by the CRDs through
// k8s.io/apiextensions-apiserver, the validating webhooks, then pkg/runtime/core's NewObjects with a
// controller-runtime fake client, controller-manager defaults and feature gates). Nothing of
// upstream is copied here; see tools/build-oracle and docs/parity.md.
//
//	oracle [--crds DIR]... -f FILE [-f FILE]... [--runs N] [--json]
//	    prints the objects as multi-document YAML (or JSON) on stdout; a refusal is printed on
//	    stderr, one `error:` line each, exit 1; an upstream panic exits 3.
//	oracle [--crds DIR]... --batch
//	    reads one JSON request per line on stdin, writes one JSON answer per line on stdout:
//	    {"id": ID, "yaml": TEXT, "runs": N, "mask": BOOL, "normalize": [OBJECT...]}
//	    -> {"id": ID, "variants": [RESULT...], "normalized": [OBJECT...]}
//	    variants are upstream's distinct answers over N controller starts (plugin order comes from
//	    Go map iteration); normalized are the given objects with their CRDs' defaults applied (as the
//	    API server stores them) and passed through their Go types (what Go's encoding drops or adds
//	    is then alike), and so are the variants' objects; the runtime in a runtime snapshot
//	    ConfigMap is rewritten as the controller reads it back (defaults, typed round trip, no
//	    server-set metadata). "mask" replaces Secret data (generated keys) by a marker.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoapplyconfigurations "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	jobsetv1alpha2 "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	schedulerpluginsv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/yaml"
	volcanov1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	configapi "github.com/kubeflow/trainer/v2/pkg/apis/config/v1alpha1"
	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	"github.com/kubeflow/trainer/v2/pkg/config"
	testingutil "github.com/kubeflow/trainer/v2/pkg/util/testing"
)

// crdDir is where tools/build-oracle put the CRDs (trainer, JobSet, coscheduling PodGroup).
var crdDir = ""

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type request struct {
	ID        string           `json:"id"`
	YAML      string           `json:"yaml"`
	Runs      int              `json:"runs"`
	Mask      bool             `json:"mask"`
	Normalize []map[string]any `json:"normalize"`
}

type answer struct {
	ID         string           `json:"id"`
	Variants   []Result         `json:"variants"`
	Normalized []map[string]any `json:"normalized"`
}

func main() {
	var files, crdDirs multiFlag
	flag.Var(&files, "f", "YAML file (repeatable)")
	flag.Var(&crdDirs, "crds", "directory of more CRD YAML files (repeatable; the ones tools/build-oracle installed are always read)")
	runs := flag.Int("runs", 1, "controller starts per input (upstream's plugin order varies between starts)")
	asJSON := flag.Bool("json", false, "print the answers as JSON")
	batch := flag.Bool("batch", false, "JSON lines: one request per stdin line, one answer per stdout line")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile here (development)")
	flag.Parse()
	if *cpuProfile != "" {
		if f, err := os.Create(*cpuProfile); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}

	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	ctrl.SetLogger(logr.Discard()) // controller-runtime warns once on stderr when no logger is set
	if crdDir == "" {              // built without tools/build-oracle's -X: the share dir next to the binary's
		if exe, err := os.Executable(); err == nil {
			if dir := filepath.Join(filepath.Dir(exe), "..", "share", "crds"); isDir(dir) {
				crdDir = dir
			}
		}
	}
	if crdDir != "" {
		crdDirs = append([]string{crdDir}, crdDirs...) // the built-in CRDs, then the ones given
	}
	o, err := newOracle(crdDirs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
		os.Exit(2)
	}
	ctx := context.Background()
	if *batch {
		if err := o.serve(ctx, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
			os.Exit(2)
		}
		return
	}
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "oracle: give -f FILE (or --batch)")
		os.Exit(2)
	}
	var data bytes.Buffer
	for _, file := range files {
		content, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
			os.Exit(2)
		}
		data.Write(content)
		data.WriteString("\n---\n")
	}
	variants := o.render(ctx, data.Bytes(), *runs, false)
	for i := range variants {
		o.defaults(variants[i].Objects)
	}
	os.Exit(printVariants(variants, *asJSON))
}

func newOracle(crdDirs []string) (*oracle, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(configapi.AddToScheme(scheme))
	utilruntime.Must(trainer.AddToScheme(scheme))
	utilruntime.Must(jobsetv1alpha2.AddToScheme(scheme))
	utilruntime.Must(schedulerpluginsv1alpha1.AddToScheme(scheme))
	utilruntime.Must(volcanov1beta1.AddToScheme(scheme))
	if len(crdDirs) == 0 {
		return nil, fmt.Errorf("no CRDs: give --crds DIR (the trainer CRDs at least)")
	}
	crds, err := loadCRDs(crdDirs, scheme)
	if err != nil {
		return nil, err
	}
	for _, kind := range []string{trainer.TrainJobKind, trainer.TrainingRuntimeKind, trainer.ClusterTrainingRuntimeKind} {
		if _, ok := crds[trainer.GroupVersion.WithKind(kind)]; !ok {
			return nil, fmt.Errorf("no CRD for %s in %s", kind, strings.Join(crdDirs, ", "))
		}
	}
	// The controller manager's configuration when started without --config: the scheme's defaults.
	_, cfg, err := config.Load(scheme, "")
	if err != nil {
		return nil, err
	}
	clientScheme := testingutil.NewClientBuilder().Build().Scheme()
	return &oracle{
		scheme: scheme, crds: crds, cfg: cfg,
		clientScheme: clientScheme, restMapper: testrestmapper.TestOnlyStaticRESTMapper(clientScheme),
		typeConverters: []managedfields.TypeConverter{
			clientgoapplyconfigurations.NewTypeConverter(clientgoscheme.Scheme), managedfields.NewDeducedTypeConverter(),
		},
	}, nil
}

// defaults gives every object its CRD's defaults, in place, and puts runtime snapshots in their
// canonical form.
func (o *oracle) defaults(objects []map[string]any) {
	for i := range objects {
		objects[i] = o.roundTrip(o.crds.applyDefaults(objects[i]))
		o.canonicalSnapshot(objects[i])
	}
}

// roundTrip passes an object through its Go type, as upstream's own objects are: what Go's
// encoding drops (empty omitempty fields) or adds (empty structs) is then the same on both sides.
// Objects of kinds the scheme does not know are returned as they are.
func (o *oracle) roundTrip(obj map[string]any) map[string]any {
	gvk := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	if !o.scheme.Recognizes(gvk) {
		return obj
	}
	typed, err := o.typed(gvk, obj)
	if err != nil {
		return obj
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return obj
	}
	unstructured.RemoveNestedField(out, "metadata", "creationTimestamp") // a typed ObjectMeta writes null
	if status, ok := out["status"].(map[string]any); ok && len(status) == 0 {
		delete(out, "status")
	}
	return out
}

// serverSetMetadata is what the API server writes into an object's metadata: a snapshot taken in a
// cluster holds it, one rendered client side cannot.
var serverSetMetadata = []string{"creationTimestamp", "generation", "managedFields", "resourceVersion", "uid"}

// canonicalSnapshot rewrites the runtime in a `<trainjob>-runtime-snapshot` ConfigMap as the
// controller would read it back: with its CRD's defaults, through the typed API struct, serialised
// by sigs.k8s.io/yaml, without the metadata only the API server sets.
func (o *oracle) canonicalSnapshot(obj map[string]any) {
	u := &unstructured.Unstructured{Object: obj}
	if u.GetKind() != "ConfigMap" || !strings.HasSuffix(u.GetName(), "-runtime-snapshot") {
		return
	}
	text, found, err := unstructured.NestedString(obj, "data", "runtime")
	if err != nil || !found {
		return
	}
	runtimeObj := map[string]any{}
	if err := yaml.Unmarshal([]byte(text), &runtimeObj); err != nil {
		return
	}
	runtimeObj = o.crds.applyDefaults(runtimeObj)
	gvk := (&unstructured.Unstructured{Object: runtimeObj}).GroupVersionKind()
	typed, err := o.typed(gvk, runtimeObj)
	if err != nil {
		return
	}
	canonical, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return
	}
	for _, key := range serverSetMetadata {
		unstructured.RemoveNestedField(canonical, "metadata", key)
	}
	data, err := yaml.Marshal(canonical)
	if err != nil {
		return
	}
	_ = unstructured.SetNestedField(obj, string(data), "data", "runtime")
}

func (o *oracle) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 0, 1<<20), 256<<20)
	writer := bufio.NewWriter(out)
	defer writer.Flush()
	encoder := json.NewEncoder(writer)
	for scanner.Scan() {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("bad request: %w", err)
		}
		ans := answer{ID: req.ID, Variants: o.render(ctx, []byte(req.YAML), req.Runs, req.Mask), Normalized: req.Normalize}
		for i := range ans.Variants {
			o.defaults(ans.Variants[i].Objects)
		}
		if ans.Normalized == nil {
			ans.Normalized = []map[string]any{}
		}
		o.defaults(ans.Normalized)
		if err := encoder.Encode(ans); err != nil {
			return err
		}
	}
	return scanner.Err()
}

func printVariants(variants []Result, asJSON bool) int {
	if len(variants) > 1 {
		fmt.Fprintf(os.Stderr, "note: upstream gave %d different answers over the runs; the first is printed\n", len(variants))
	}
	first := variants[0]
	for _, warning := range first.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s\n", warning)
	}
	if first.Panic != "" {
		fmt.Fprintf(os.Stderr, "error: upstream panics: %s\n", first.Panic)
		return 3
	}
	if len(first.Errors) > 0 {
		for _, e := range first.Errors {
			fmt.Fprintf(os.Stderr, "error: %s\n", e)
		}
		return 1
	}
	if asJSON {
		data, _ := json.MarshalIndent(variants, "", "  ")
		fmt.Println(string(data))
		return 0
	}
	for i, obj := range first.Objects {
		if i > 0 {
			fmt.Println("---")
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
			return 2
		}
		fmt.Print(string(data))
	}
	return 0
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
