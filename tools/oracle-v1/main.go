// Command oracle-v1 answers what Kubeflow Training Operator v1 (github.com/kubeflow/training-operator,
// the version go.mod requires) makes of a v1 job: for each PyTorchJob, MPIJob, XGBoostJob and
// PaddleJob of the YAML files given, the Pods (and, for MPI, the ConfigMap with the hostfile) its
// controller creates, computed by the operator's own code. Nothing of the operator is copied here:
//
//   - admission: the job's validating webhook (pkg/webhooks/<framework>, ValidateCreate; MPIJob has
//     none and its controller calls ValidateV1MpiJobSpec, so that is called instead), on the job as
//     the API server stores it (unknown fields pruned: the YAML is decoded into the Go types);
//
//   - defaults: the scheme's defaulting functions (SetDefaults_<Kind>), as the reconcilers call
//     `Scheme.Default` before they reconcile;
//
//   - Pods: the reconciler's own ReconcilePods for every replica type, with no Pods existing yet
//     (the first reconcile), against client-go's fake clientset and controller-runtime's fake client;
//     gang scheduling off and the controller-manager's flag defaults (config.Config).
//
//     oracle-v1 FILE...
//
// prints one JSON object per document, in file and document order, on stdout:
//
//	{"file": F, "document": N, "kind": K, "name": NAME, "pods": [POD...], "configMaps": [CM...],
//	 "warnings": [...], "error": "..."}
//
// "skipped" replaces pods for documents of other kinds (TFJob, MXJob, Services, ...). Pods are sorted
// by name and keep only what the controller decides (metadata name, labels, annotations; spec).
// A file that cannot be read or parsed exits 1 with `error:` on stderr; a job the operator refuses
// is answered with "error".
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/go-logr/logr"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	trainingcommon "github.com/kubeflow/training-operator/pkg/common"
	"github.com/kubeflow/training-operator/pkg/common/util"
	"github.com/kubeflow/training-operator/pkg/config"
	"github.com/kubeflow/training-operator/pkg/controller.v1/common"
	"github.com/kubeflow/training-operator/pkg/controller.v1/control"
	"github.com/kubeflow/training-operator/pkg/controller.v1/expectation"
	"github.com/kubeflow/training-operator/pkg/controller.v1/mpi"
	paddlecontroller "github.com/kubeflow/training-operator/pkg/controller.v1/paddlepaddle"
	"github.com/kubeflow/training-operator/pkg/controller.v1/pytorch"
	"github.com/kubeflow/training-operator/pkg/controller.v1/xgboost"
	paddlewebhook "github.com/kubeflow/training-operator/pkg/webhooks/paddlepaddle"
	pytorchwebhook "github.com/kubeflow/training-operator/pkg/webhooks/pytorch"
	xgboostwebhook "github.com/kubeflow/training-operator/pkg/webhooks/xgboost"
)

// uid stands in for the UID the API server gives the job: owner references and IsControlledBy use it.
const uid = types.UID("00000000-0000-0000-0000-000000000001")

type answer struct {
	File       string             `json:"file"`
	Document   int                `json:"document"`
	Kind       string             `json:"kind"`
	Name       string             `json:"name"`
	Skipped    string             `json:"skipped,omitempty"`
	Error      string             `json:"error,omitempty"`
	Warnings   []string           `json:"warnings,omitempty"`
	Pods       []pod              `json:"pods,omitempty"`
	ConfigMaps []corev1.ConfigMap `json:"configMaps,omitempty"`
}

// pod is what the controller decides of a Pod: the API server and kubelet add the rest.
type pod struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        corev1.PodSpec    `json:"spec"`
}

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(kubeflowv1.AddToScheme(scheme))
	// The controller-manager's flag defaults (cmd/training-operator.v1/main.go).
	config.Config.PyTorchInitContainerImage = config.PyTorchInitContainerImageDefault
	config.Config.PyTorchInitContainerTemplateFile = config.PyTorchInitContainerTemplateFileDefault
	config.Config.PyTorchInitContainerMaxTries = config.PyTorchInitContainerMaxTriesDefault
	config.Config.MPIKubectlDeliveryImage = config.MPIKubectlDeliveryImageDefault
}

func main() {
	logrus.SetOutput(io.Discard) // the operator logs every step; only answers go out
	klog.SetLogger(logr.Discard())
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle-v1 FILE...")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	encoder := json.NewEncoder(out)
	for _, file := range os.Args[1:] {
		documents, err := readDocuments(file)
		if err != nil {
			out.Flush()
			fmt.Fprintf(os.Stderr, "error: %s: %v\n", file, err)
			os.Exit(1)
		}
		for index, document := range documents {
			result := answerFor(document)
			result.File, result.Document = file, index+1
			if err := encoder.Encode(result); err != nil {
				fmt.Fprintf(os.Stderr, "error: %v\n", err)
				os.Exit(1)
			}
		}
	}
}

func readDocuments(file string) ([][]byte, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	var documents [][]byte
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return documents, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(document)) > 0 {
			documents = append(documents, document)
		}
	}
}

func answerFor(document []byte) (result answer) {
	var meta metav1.PartialObjectMetadata
	if err := yaml.Unmarshal(document, &meta); err != nil {
		return answer{Error: err.Error()}
	}
	result = answer{Kind: meta.Kind, Name: meta.Name}
	if meta.APIVersion != kubeflowv1.GroupVersion.String() {
		result.Skipped = "not a " + kubeflowv1.GroupVersion.String() + " object"
		return result
	}
	var err error
	switch meta.Kind {
	case kubeflowv1.PyTorchJobKind:
		err = runPyTorch(document, &result)
	case kubeflowv1.MPIJobKind:
		err = runMPI(document, &result)
	case kubeflowv1.XGBoostJobKind:
		err = runXGBoost(document, &result)
	case kubeflowv1.PaddleJobKind:
		err = runPaddle(document, &result)
	default:
		result.Skipped = "not a kind this oracle runs"
		return result
	}
	if err != nil {
		result.Error = err.Error()
	}
	return result
}

// decode reads a job as the API server stores it: fields its schema does not know are pruned,
// which decoding into the Go types does too. Jobs without a namespace land in "default".
func decode(document []byte, job client.Object) error {
	if err := yaml.Unmarshal(document, job); err != nil {
		return err
	}
	if job.GetNamespace() == "" {
		job.SetNamespace(metav1.NamespaceDefault)
	}
	job.SetUID(uid)
	return nil
}

// controllerParts are what NewReconciler wires from the manager, built on fakes: the Pods the
// reconciler creates land in the fake clientset.
type controllerParts struct {
	kube     *kubefake.Clientset
	recorder record.EventRecorder
}

func newParts() controllerParts {
	return controllerParts{kube: kubefake.NewSimpleClientset(), recorder: &record.FakeRecorder{}}
}

func (p controllerParts) jobController(controller trainingcommon.ControllerInterface) common.JobController {
	return common.JobController{
		Controller:     controller,
		Expectations:   expectation.NewControllerExpectations(),
		WorkQueue:      &util.FakeWorkQueue{},
		Recorder:       p.recorder,
		KubeClientSet:  p.kube,
		PodControl:     control.RealPodControl{KubeClient: p.kube, Recorder: p.recorder},
		ServiceControl: control.RealServiceControl{KubeClient: p.kube, Recorder: p.recorder},
	}
}

// reconcilePods runs ReconcilePods for each replica type, in name order (the controller ranges over
// the map; each type's Pods are its own, so the order changes nothing but the log).
func reconcilePods(controller trainingcommon.ControllerInterface, job metav1.Object, status *kubeflowv1.JobStatus,
	replicas map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec) error {
	types := make([]string, 0, len(replicas))
	for replicaType := range replicas {
		types = append(types, string(replicaType))
	}
	sort.Strings(types)
	for _, name := range types {
		replicaType := kubeflowv1.ReplicaType(name)
		if err := controller.ReconcilePods(job, status, nil, replicaType, replicas[replicaType], replicas); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func collect(parts controllerParts, namespace string, result *answer) error {
	pods, err := parts.kube.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, item := range pods.Items {
		result.Pods = append(result.Pods, pod{Name: item.Name, Labels: item.Labels, Annotations: item.Annotations, Spec: item.Spec})
	}
	sort.Slice(result.Pods, func(i, j int) bool { return result.Pods[i].Name < result.Pods[j].Name })
	maps, err := parts.kube.CoreV1().ConfigMaps(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, item := range maps.Items {
		item.OwnerReferences, item.ManagedFields = nil, nil
		result.ConfigMaps = append(result.ConfigMaps, item)
	}
	return nil
}

// refused is the webhook's answer as the API server relays it.
func refused(warnings []string, err error, result *answer) error {
	result.Warnings = append(result.Warnings, warnings...)
	if err != nil {
		return fmt.Errorf("admission webhook denied the request: %w", err)
	}
	return nil
}

func runPyTorch(document []byte, result *answer) error {
	job := &kubeflowv1.PyTorchJob{}
	if err := decode(document, job); err != nil {
		return err
	}
	warnings, err := (&pytorchwebhook.Webhook{}).ValidateCreate(context.Background(), job)
	if err := refused(warnings, err, result); err != nil {
		return err
	}
	parts := newParts()
	reconciler := &pytorch.PyTorchJobReconciler{Scheme: scheme, Log: logr.Discard()}
	reconciler.JobController = parts.jobController(reconciler)
	reconciler.Scheme.Default(job)
	if err := reconcilePods(reconciler, job, &job.Status, job.Spec.PyTorchReplicaSpecs); err != nil {
		return err
	}
	return collect(parts, job.Namespace, result)
}

func runXGBoost(document []byte, result *answer) error {
	job := &kubeflowv1.XGBoostJob{}
	if err := decode(document, job); err != nil {
		return err
	}
	warnings, err := (&xgboostwebhook.Webhook{}).ValidateCreate(context.Background(), job)
	if err := refused(warnings, err, result); err != nil {
		return err
	}
	parts := newParts()
	reconciler := &xgboost.XGBoostJobReconciler{Scheme: scheme, Log: logr.Discard()}
	reconciler.JobController = parts.jobController(reconciler)
	reconciler.Scheme.Default(job)
	if err := reconcilePods(reconciler, job, &job.Status, job.Spec.XGBReplicaSpecs); err != nil {
		return err
	}
	return collect(parts, job.Namespace, result)
}

func runPaddle(document []byte, result *answer) error {
	job := &kubeflowv1.PaddleJob{}
	if err := decode(document, job); err != nil {
		return err
	}
	warnings, err := (paddlewebhook.Webhook{}).ValidateCreate(context.Background(), job)
	if err := refused(warnings, err, result); err != nil {
		return err
	}
	parts := newParts()
	reconciler := &paddlecontroller.PaddleJobReconciler{Scheme: scheme, Log: logr.Discard()}
	reconciler.JobController = parts.jobController(reconciler)
	reconciler.Scheme.Default(job)
	if err := reconcilePods(reconciler, job, &job.Status, job.Spec.PaddleReplicaSpecs); err != nil {
		return err
	}
	return collect(parts, job.Namespace, result)
}

// runMPI: the MPI reconciler creates the launcher, the workers, the ConfigMap (hostfile, kubexec.sh)
// and the launcher's RBAC in one ReconcilePods call, whatever the replica type; it reads with its
// controller-runtime client and creates with the clientset, as in the operator.
func runMPI(document []byte, result *answer) error {
	job := &kubeflowv1.MPIJob{}
	if err := decode(document, job); err != nil {
		return err
	}
	if err := kubeflowv1.ValidateV1MpiJobSpec(&job.Spec); err != nil {
		return err
	}
	parts := newParts()
	reconciler := &mpi.MPIJobReconciler{
		Client: ctrlfake.NewClientBuilder().WithScheme(scheme).Build(),
		Scheme: scheme,
		Log:    logr.Discard(),
	}
	reconciler.JobController = parts.jobController(reconciler)
	reconciler.Scheme.Default(job)
	launcher := kubeflowv1.MPIJobReplicaTypeLauncher
	if err := reconciler.ReconcilePods(job, &job.Status, nil, launcher, job.Spec.MPIReplicaSpecs[launcher], job.Spec.MPIReplicaSpecs); err != nil {
		return err
	}
	return collect(parts, job.Namespace, result)
}
