package gc

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/krender/krender/model/workload"
)

// Report is what one run did (or, under --dry-run, would do).
type Report struct {
	DryRun bool `json:"dryRun"`
	// Namespace is the one asked (-n, else the kubeconfig's); "" with -A.
	Namespace string `json:"namespace,omitempty"`
	// Namespaces are, with -A, the namespaces holding a listed object.
	Namespaces []string       `json:"namespaces,omitempty"`
	Objects    []ReportObject `json:"objects"`
	// Missing are the hashed names desired state names and the cluster
	// lacks, one per object.
	Missing []Missing `json:"missing,omitempty"`
	Summary Summary   `json:"summary"`
}

// ReportObject is one hashed object gc changed or would change, or keeps
// without proof that nothing uses it. It names the object, never its data.
type ReportObject struct {
	Namespace string  `json:"namespace"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Action    Action  `json:"action"`
	Owners    []Owner `json:"owners"`
	Added     []Owner `json:"added,omitempty"`
	Removed   []Owner `json:"removed,omitempty"`
	Reason    string  `json:"reason"`
}

// Summary counts the hashed objects by what happened to them.
type Summary struct {
	// Workloads counts the objects listed that run pods (workloads,
	// revisions, pods), in the namespaces asked.
	Workloads int `json:"workloads"`
	Hashed    int `json:"hashed"`
	Pinned    int `json:"pinned"`
	Owned     int `json:"ownersChanged"`
	Deleted   int `json:"deleted"`
	Kept      int `json:"keptUnproven"`
	Unchanged int `json:"unchanged"`
}

// NewReport lists the decisions that change something or keep an object
// gc cannot prove unused; the others only count.
func NewReport(ds []Decision, dryRun bool) *Report {
	r := &Report{DryRun: dryRun, Objects: []ReportObject{}}
	r.Summary.Hashed = len(ds)
	for _, d := range ds {
		if d.Pinned {
			r.Summary.Pinned++
		}
		switch d.Action {
		case Unchanged:
			r.Summary.Unchanged++
			continue
		case Own:
			r.Summary.Owned++
		case Delete:
			r.Summary.Deleted++
		case Keep:
			r.Summary.Kept++
		}
		h := d.Object
		owners := d.Owners
		if owners == nil {
			owners = []Owner{}
		}
		r.Objects = append(r.Objects, ReportObject{
			Namespace: h.Namespace, Kind: h.Kind, Name: h.Name, Action: d.Action,
			Owners: owners, Added: d.Added, Removed: d.Removed, Reason: d.Reason,
		})
	}
	return r
}

// Scope records where the run looked: namespace ns ("": every namespace,
// then each one holding a listed object) and what it listed.
func (r *Report) Scope(ns string, s *Snapshot) {
	r.Namespace = ns
	for _, x := range s.Referrers {
		if x.Namespace != "" && runsPods(x.Owner) {
			r.Summary.Workloads++
		}
	}
	if ns != "" {
		return
	}
	seen := map[string]bool{}
	for _, x := range s.Referrers {
		seen[x.Namespace] = true
	}
	for _, h := range s.Hashed {
		seen[h.Namespace] = true
	}
	delete(seen, "") // cluster-scoped objects
	r.Namespaces = slices.Sorted(maps.Keys(seen))
}

// runsPods reports whether o is of a kind that runs pods from a template
// (a workload, a revision, a pod): ServiceAccounts, Roles and the like
// are in every namespace, even one nothing runs in.
func runsPods(o Owner) bool {
	group, _, _ := strings.Cut(o.APIVersion, "/")
	if !strings.Contains(o.APIVersion, "/") {
		group = ""
	}
	return o.Kind == "ControllerRevision" || workload.TemplatePath(o.Kind, group) != nil
}

// Changed reports whether the run changed (or would change) anything.
func (r *Report) Changed() bool { return r.Summary.Owned+r.Summary.Deleted > 0 }

// Write prints r as text (one line per object, then the summary) or json.
func (r *Report) Write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	for _, o := range r.Objects {
		if _, err := fmt.Fprintln(w, o.line(r.DryRun)); err != nil {
			return err
		}
	}

	_, err := fmt.Fprintln(w, r.summaryLine())
	return err
}

func (o ReportObject) line(dryRun bool) string {
	verb := map[Action]string{Own: "owners set", Delete: "deleted", Keep: "kept"}[o.Action]
	if dryRun && o.Action != Keep {
		verb = map[Action]string{Own: "would set owners", Delete: "would delete"}[o.Action]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s/%s: %s; owners: %s", o.Namespace, strings.ToLower(o.Kind), o.Name, verb, ownerList(o.Owners))
	if len(o.Added) > 0 {
		fmt.Fprintf(&b, " (+%s)", ownerList(o.Added))
	}
	if len(o.Removed) > 0 {
		fmt.Fprintf(&b, " (-%s)", ownerList(o.Removed))
	}
	fmt.Fprintf(&b, "; %s", o.Reason)
	return b.String()
}

func ownerList(os []Owner) string {
	if len(os) == 0 {
		return "none"
	}
	names := make([]string, len(os))
	for i, o := range os {
		names[i] = o.String()
	}
	return strings.Join(names, ", ")
}

// where names the namespaces of the run.
func (r *Report) where() string {
	switch {
	case r.Namespace != "":
		return "namespace " + r.Namespace
	case len(r.Namespaces) == 1:
		return "all namespaces (1 holds objects gc lists)"
	}
	return fmt.Sprintf("all namespaces (%d hold objects gc lists)", len(r.Namespaces))
}

func (r *Report) summaryLine() string {
	s := r.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "gc: %s: ", r.where())
	switch {
	case s.Hashed == 0 && s.Workloads == 0:
		b.WriteString("nothing to change: no workloads and no hashed objects")
		if r.Namespace != "" {
			b.WriteString(" in it (is it the namespace meant?)")
		}
	case !r.Changed():
		fmt.Fprintf(&b, "nothing to change: %d hashed objects (%d pinned by what is applied), %d kept unproven", s.Hashed, s.Pinned, s.Kept)
	default:
		verb := "changed"
		if r.DryRun {
			verb = "would change (dry run: nothing changed)"
		}
		fmt.Fprintf(&b, "%s %d of %d hashed objects: %d owner updates, %d deleted; %d pinned by what is applied, %d kept unproven, %d unchanged",
			verb, s.Owned+s.Deleted, s.Hashed, s.Owned, s.Deleted, s.Pinned, s.Kept, s.Unchanged)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, "; %d named but missing", len(r.Missing))
	}
	return b.String()
}
