package main

// Admission as the API server does it for the Trainer CRDs: decode, strict unknown-field check,
// pruning, CRD defaults, the CRD's OpenAPI schema and CEL rules (k8s.io/apiextensions-apiserver's
// own code, the same calls as its customresource handler and strategy), then upstream's validating
// webhooks (github.com/kubeflow/trainer/v2/pkg/webhooks).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crdVersion is one served version of a CRD, ready to admit objects of it.
type crdVersion struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   interface {
		PrepareForCreate(ctx context.Context, obj runtime.Object)
		Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	}
}

type crdSet map[schema.GroupVersionKind]*crdVersion

// loadCRDs reads every CustomResourceDefinition in the *.yaml files under the given dirs.
func loadCRDs(dirs []string, typer runtime.ObjectTyper) (crdSet, error) {
	crds := crdSet{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, entry os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entry.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs, err := splitYAML(data)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for _, doc := range docs {
				var crd apiextensionsv1.CustomResourceDefinition
				if err := yaml.Unmarshal(doc, &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
					continue
				}
				if err := crds.add(&crd, typer); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return crds, nil
}

func (crds crdSet) add(crd *apiextensionsv1.CustomResourceDefinition, typer runtime.ObjectTyper) error {
	for _, version := range crd.Spec.Versions {
		if !version.Served || version.Schema == nil {
			continue
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(version.Schema, internal, nil); err != nil {
			return err
		}
		structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return fmt.Errorf("%s %s: not a structural schema: %w", crd.Name, version.Name, err)
		}
		structural = structural.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(structural); err != nil {
			return err
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		var status *apiextensions.CustomResourceSubresourceStatus
		if version.Subresources != nil && version.Subresources.Status != nil {
			status = &apiextensions.CustomResourceSubresourceStatus{}
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
		namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		crds[gvk] = &crdVersion{
			gvk:        gvk,
			namespaced: namespaced,
			structural: structural,
			strategy:   customresource.NewStrategy(typer, namespaced, gvk, validator, nil, structural, status, nil, version.SelectableFields),
		}
	}
	return nil
}

// admit is what the API server does with a create of this custom resource before the validating
// webhooks: strict field validation (kubectl's default), pruning, defaults, schema and CEL rules.
func (v *crdVersion) admit(ctx context.Context, obj map[string]any) (*unstructured.Unstructured, field.ErrorList) {
	u := &unstructured.Unstructured{Object: obj}
	if v.namespaced && u.GetNamespace() == "" {
		u.SetNamespace("default") // kubectl's namespace when the context names none
	}
	var unknown []string
	_, _, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	unknown = append(unknown, metaUnknown...)
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, _, _ := schemaobjectmeta.GetObjectMeta(u.Object, false)
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	if ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); ferr != nil {
		return nil, field.ErrorList{ferr}
	} else {
		unknown = append(unknown, paths...)
	}
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if objectMeta != nil {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var errs field.ErrorList
		for _, path := range unknown {
			errs = append(errs, field.Invalid(field.NewPath(path), nil, fmt.Sprintf("unknown field %q", path)))
		}
		return nil, errs // fieldValidation=Strict
	}
	structuraldefaulting.Default(u.Object, v.structural)
	v.strategy.PrepareForCreate(ctx, u)
	if errs := v.strategy.Validate(ctx, u); len(errs) > 0 {
		return nil, errs
	}
	return u, nil
}

// applyDefaults gives an object the defaults its CRD would (what the API server stores); objects
// of no known CRD are returned as they are.
func (crds crdSet) applyDefaults(obj map[string]any) map[string]any {
	u := &unstructured.Unstructured{Object: obj}
	v, ok := crds[u.GroupVersionKind()]
	if !ok {
		return obj
	}
	structuraldefaulting.Default(u.Object, v.structural)
	return u.Object
}

// splitYAML splits a multi-document YAML stream and turns each document into JSON (as kubectl does).
func splitYAML(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufioReader(data))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if string(bytes.TrimSpace(js)) == "null" {
			continue
		}
		docs = append(docs, js)
	}
}
