package contenthash

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/krender/krender/manifest"
)

// NameLabel is set on every object renamed with a hash suffix, to its name
// as written: each apply leaves the previous versions behind, and with the
// label they are one selector away (`kubectl get cm -l
// krender.io/name=app-config`), so a keep-last-N clean-up is one command.
const NameLabel = manifest.DirectivePrefix + "name"

// maxLabelValue is the longest label value Kubernetes accepts.
const maxLabelValue = 63

// NameLabelValue is the label value for a name as written. A name is a DNS
// subdomain of up to 253 characters, a label value at most 63: a longer
// name keeps its first 52 characters and gets "-" and 10 hex digits of the
// whole name's sha256, which keeps the value unique, valid (it ends with a
// letter or digit) and computable by a script.
func NameLabelValue(name string) string {
	if len(name) <= maxLabelValue {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:maxLabelValue-11] + "-" + hex.EncodeToString(sum[:])[:10]
}

func setNameLabel(o *manifest.Object, name string) {
	md := manifest.Ensure(o.Node, "metadata")
	manifest.Put(manifest.Ensure(md, "labels"), NameLabel, manifest.KubeString(NameLabelValue(name)))
	o.MadeEntry(StageName, o.Node, "metadata")
}

// The annotations with which Argo CD and Flux leave an object they no
// longer render in the cluster: without them, each deletes the previous
// version in the sync that applies its successor, before the rollout ends
// and before `krender gc` can let the revisions that still use it decide.
const (
	ArgoSyncOptions = "argocd.argoproj.io/sync-options"
	ArgoNoPrune     = "Prune=false"
	FluxPrune       = "kustomize.toolkit.fluxcd.io/prune"
	FluxNoPrune     = "disabled"
)

// setNoPrune marks a renamed object for the profile's hash.gc. An Argo CD
// sync-options annotation the template already has is left as written:
// its options are the author's.
func setNoPrune(o *manifest.Object) {
	md := manifest.Ensure(o.Node, "metadata")
	ann := manifest.Ensure(md, "annotations")
	if manifest.Value(ann, ArgoSyncOptions) == nil {
		manifest.Put(ann, ArgoSyncOptions, manifest.KubeString(ArgoNoPrune))
	}
	if manifest.Value(ann, FluxPrune) == nil {
		manifest.Put(ann, FluxPrune, manifest.KubeString(FluxNoPrune))
	}
	o.MadeEntry(StageName, o.Node, "metadata")
}
