// Package verdict is what the API server's validation says of an object, in
// types light enough for krender itself to link. The validation runs in
// packages fieldcheck and crd, which bring k8s.io/api and the API server's
// code and so only krender-check links; check reads their verdicts through
// verdict.Validator, and without one judges from kubeapi's tables alone.
package verdict

import (
	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/manifest"
)

// Kind sorts problems by what the API server does with them.
type Kind int

const (
	// Invalid: the API server rejects the object.
	Invalid Kind = iota
	// UnknownField: the API server rejects the field under strict field
	// validation (kubectl's default) and drops it otherwise.
	UnknownField
	// Deprecated is a version the CRD marks deprecated: the API server
	// accepts the object with a warning.
	Deprecated
)

// Problem is one thing the API server would object to, at the node that
// holds it.
type Problem struct {
	Kind Kind
	Node *yaml.Node
	Msg  string
	// Path is the field the problem is about, as the API server names it
	// (for crd's problems, which find their node again in a copy by it).
	Path string
}

// Custom is what the API server says of a CustomResourceDefinition or a
// custom resource: Defined is false where no CRD defines its kind; Err is
// set where it could not be checked at all.
type Custom struct {
	Defined  bool
	Problems []Problem
	Err      error
}

// Group and Kind of a CustomResourceDefinition.
const (
	CRDGroup = "apiextensions.k8s.io"
	CRDKind  = "CustomResourceDefinition"
)

// IsDefinition reports whether o is a CustomResourceDefinition.
func IsDefinition(o *manifest.Object) bool { return o.Kind() == CRDKind && o.Group() == CRDGroup }

// IsCustom reports whether o is a custom resource: its group is none the
// API server serves itself.
func IsCustom(o *manifest.Object) bool {
	if o.Kind() == "" || o.APIVersion() == "" {
		return false
	}
	return !kubeapi.BuiltinGroup(o.Group())
}

// Validator is the API server's own validation, for what kubeapi's tables
// cannot settle: strict decoding of a built-in object the fast path is not
// sure of, a custom workload's pod template, and CRDs with the custom
// resources they define. krender-check gives check one
// (lint/validator); krender does not link the API server's code and
// gives none, and check then stops with check.ErrNeedsValidator once it
// needs one, before anything is printed. Nearly every object of a fleet of built-in kinds is settled by
// the tables, so check runs in krender itself, without a second process
// and the API server's start-up (docs/architecture.md).
type Validator interface {
	// Fields decodes a built-in object strictly into its Go type, as the
	// API server does (fieldcheck.Check).
	Fields(o *manifest.Object) ([]Problem, error)
	// PodTemplate decodes the pod template at path in o strictly
	// (fieldcheck.CheckPodTemplate).
	PodTemplate(o *manifest.Object, path []string) ([]Problem, error)
	// CRDs compiles the CRDs among the objects of the CRD files.
	CRDs(files []*manifest.Object) (CRDs, error)
	// Update judges new applied over old as the API server does: its
	// defaulting and canonical forms, then its update validation
	// (Validate*Update).
	Update(old, new *manifest.Object) (Update, error)
	// Create judges o created as `kubectl apply` creates it: the API
	// server's strict decoding, defaulting and create validation
	// (rest.BeforeCreate); its refusal, none where it accepts o or judges
	// no such kind.
	Create(o *manifest.Object) ([]Problem, error)
}

// CRDs are the CustomResourceDefinitions of one run (crd.Catalog).
type CRDs interface {
	// Check says what the API server would of every CRD and custom
	// resource of s and of the CRD files.
	Check(s *manifest.Set) map[*manifest.Object]Custom
	// Definitions are the CRD files' objects, in the order given.
	Definitions() []*manifest.Object
	// Scope is the scope the CRD files give a kind.
	Scope(gk schema.GroupKind) (namespaced, known bool)
	// Update judges new, a custom resource, applied over old as the API
	// server does with the CRD files' definition of its kind, transition
	// rules (oldSelf) included: Refused only (Known stays false, the
	// template is the custom resource's as written). base are the CRDs
	// old was created under (nil: the same): old is stored by base's
	// definition and read back by this one's.
	Update(base CRDs, old, new *manifest.Object, namespace string) (Update, error)
	// Create judges o, a custom resource, created as the API server does
	// with the CRD files' definition of its kind: its refusals, none
	// where the files do not define the kind.
	Create(o *manifest.Object, namespace string) ([]Problem, error)
}

// Update is what the API server does when new, the same object as old, is
// applied over it (`krender diff`): the stored pod template's fate and the
// update validation's refusals.
type Update struct {
	// Known says Template is the API server's judgement of a built-in
	// kind; when false, the caller compares pod templates as written (a
	// custom resource, which the API server stores as given), and only
	// Refused may be set.
	Known bool
	// Template says the pod template (a CronJob's jobTemplate) differs
	// as the API server stores it: after its defaulting, in canonical
	// form. Equal templates roll nothing, whatever their spelling.
	Template bool
	// Refused are the update validation's errors, Path the field and Msg
	// the API server's message; none: the apply is accepted.
	Refused []Problem
	// Stored, set when Template is, reads old and new as the API server
	// stores them (defaulted, canonical) at a path (keys, "[name]" for a
	// list's item by name, "[i]" by index), as JSON values: a difference
	// written out that the stored forms lack is no reason to roll. ok is
	// false where the path names no field of the kind.
	Stored func(path []string) (old, new any, ok bool)
	// Kept are the fields the update leaves out and the API server keeps
	// as stored (a Service's allocated clusterIP and clusterIPs, nodePorts and
	// healthCheckNodePort), each path as a diff names it ("spec.clusterIP",
	// "spec.ports[http].nodePort") with the value kept.
	Kept map[string]string
}
