package check

import (
	"fmt"
	"strings"

	"github.com/krender/krender/kube/lifecycle"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// deprecationGuide says, per release, what changed between an API's
// versions: fields renamed or required, defaults that differ.
const deprecationGuide = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"

// setKubeVersion is how a profile without kubeVersion learns to ask for
// the full check: the profile cannot know which cluster it deploys to.
const setKubeVersion = `set kubeVersion in the profile (kubeVersion: "1.33") to check against your cluster's release`

// apiRemoved: an object the target release refuses, removed or not yet
// there, fails at apply time with "no matches for kind"; better at review.
// Without kubeVersion only what is already gone from some release is
// certain, and it is a warning, since the cluster may be older.
func apiRemoved(c *ctx) {
	kv := c.profile.KubeVersion.Version
	eachLifecycle(c, func(o *manifest.Object, st lifecycle.Status) {
		at := manifest.Value(o.Node, "apiVersion")
		switch {
		case kv.IsZero():
			if st.RemovedBy(lifecycle.Latest()) {
				c.report(o, at, filepos.Warning, fmt.Sprintf("%s was removed in Kubernetes %s (the profile sets no kubeVersion)", st.API, st.Removed),
					replacementFix(st, lifecycle.Latest(), "")+"; "+setKubeVersion)
			}
		case st.RemovedBy(kv):
			c.report(o, at, filepos.Err, fmt.Sprintf("%s %s in Kubernetes %s (kubeVersion %s)", st.API, removed(st), st.Removed, kv),
				replacementFix(st, kv, ""))
		case st.NotYetIn(kv):
			fix := fmt.Sprintf("raise kubeVersion if the cluster runs %s or later", st.Introduced)
			if r, _, ok := st.ReplacementAt(kv); ok {
				fix = fmt.Sprintf("use %s, which Kubernetes %s serves%s, or %s", apiName(r, st.Kind), kv, unlessEnabled(r), fix)
			} else {
				fix += fmt.Sprintf("; Kubernetes %s serves no version of %s", kv, st.Kind)
			}
			c.report(o, at, filepos.Err, fmt.Sprintf("%s is not served before Kubernetes %s (kubeVersion %s)", st.API, st.Introduced, kv), fix)
		case !st.OnByDefault():
			c.report(o, at, filepos.Warning, offByDefaultMessage(st, kv), offByDefaultFix(st, kv))
		}
	})
}

// offByDefaultMessage: an alpha API, or a beta one from 1.24 on, is in
// the release but a cluster serves it only when told to; with default
// settings the apply fails with "no matches for kind". A warning, not an
// error: the cluster may well enable it (DRA on 1.33 needs exactly that).
// The deprecation, which api-deprecated leaves to this finding, is named.
func offByDefaultMessage(st lifecycle.Status, kv lifecycle.Version) string {
	level := "a beta"
	if strings.Contains(st.APIVersion, "alpha") {
		level = "an alpha"
	}
	msg := fmt.Sprintf("%s is %s API that Kubernetes %s serves only where the cluster enables it (kube-apiserver --runtime-config=%s=true); with default settings it is refused (kubeVersion %s)",
		st.API, level, kv, st.APIVersion, kv)
	if st.DeprecatedBy(kv) {
		msg += fmt.Sprintf("; it is deprecated since %s", st.Deprecated)
		if !st.Removed.IsZero() {
			msg += fmt.Sprintf(" and removed in %s", st.Removed)
		}
	}
	return msg
}

func offByDefaultFix(st lifecycle.Status, kv lifecycle.Version) string {
	keep := fmt.Sprintf("if the cluster enables %s, mark the object krender.io/ignore: api-removed", st.APIVersion)
	if r, _, ok := st.ReplacementAt(kv); ok {
		if rs, known := lifecycle.Lookup(r.APIVersion, r.Kind); !known || rs.OnByDefault() {
			return fmt.Sprintf("use %s, which Kubernetes %s serves by default; %s", apiName(r, st.Kind), kv, keep)
		}
	}
	fix := fmt.Sprintf("Kubernetes %s serves %s in no version by default: %s", kv, st.Kind, keep)
	if r, at, ok := st.FirstServedByDefault(kv); ok {
		fix += fmt.Sprintf(", or move to %s once the cluster runs %s or later", apiName(r, st.Kind), at)
	}
	return fix
}

// unlessEnabled qualifies "Kubernetes X serves r" for an API that is off
// by default.
func unlessEnabled(r lifecycle.API) string {
	if st, ok := lifecycle.Lookup(r.APIVersion, r.Kind); ok && !st.OnByDefault() {
		return " where the cluster enables it"
	}
	return ""
}

// apiDeprecated: a deprecated API still works, and the API server answers
// with a warning that deploy logs swallow; the removal then breaks the
// deploy after the cluster upgrade.
func apiDeprecated(c *ctx) {
	crdDeprecated(c)
	kv := c.profile.KubeVersion.Version
	if kv.IsZero() {
		return
	}
	eachLifecycle(c, func(o *manifest.Object, st lifecycle.Status) {
		if !st.DeprecatedBy(kv) || st.RemovedBy(kv) || st.NotYetIn(kv) || !st.OnByDefault() {
			return // an API off by default: api-removed's warning names the deprecation
		}
		msg := fmt.Sprintf("%s is deprecated since Kubernetes %s and removed in %s (kubeVersion %s)", st.API, st.Deprecated, st.Removed, kv)
		when := " before the cluster moves to " + st.Removed.String()
		if st.Removed.IsZero() {
			msg = fmt.Sprintf("%s is deprecated since Kubernetes %s (kubeVersion %s); no removal is scheduled", st.API, st.Deprecated, kv)
			when = ""
		}
		c.report(o, manifest.Value(o.Node, "apiVersion"), filepos.Warning, msg, replacementFix(st, kv, when))
	})
}

func eachLifecycle(c *ctx, f func(o *manifest.Object, st lifecycle.Status)) {
	for _, o := range c.set.Objects {
		if st, ok := lifecycle.Lookup(o.APIVersion(), o.Kind()); ok {
			f(o, st)
		}
	}
}

// removed is the tense of a removal: the library also knows removals that
// later releases have scheduled.
func removed(st lifecycle.Status) string {
	if st.Removed.Compare(lifecycle.Latest()) > 0 {
		return "is to be removed"
	}
	return "was removed"
}

// replacementFix names what release v serves instead of st's API; when
// says by when to move.
func replacementFix(st lifecycle.Status, v lifecycle.Version, when string) string {
	r, advice, ok := st.ReplacementAt(v)
	switch {
	case ok:
		guide := deprecationGuide
		if st.Source != "" {
			guide = st.Source
		}
		if e := unlessEnabled(r); e != "" {
			when = fmt.Sprintf(" (Kubernetes %s serves it only%s)%s", v, e, when)
		}
		return fmt.Sprintf("use %s%s; what changed between the versions: %s", apiName(r, st.Kind), when, guide)
	case advice != "":
		return advice
	}
	return fmt.Sprintf("Kubernetes %s serves no version of %s and no replacement is named: drop the object, or move to what took over its job (%s)", v, st.Kind, deprecationGuide)
}

// apiName is r's apiVersion, with its kind when that differs from kind.
func apiName(r lifecycle.API, kind string) string {
	if r.Kind == kind {
		return r.APIVersion
	}
	return r.String()
}
