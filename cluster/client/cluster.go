// Package client runs gc against a cluster through client-go: one paged
// list per kind and namespace, then a server-side apply of the owner
// references that change and a preconditioned delete of what gc deletes.
// Only krender-check links it (internal/cli's TestKrenderLinksNoAPIServerCode).
package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/krender/krender/cluster/gc"
)

// Clients are what gc uses of a cluster; tests give fakes or a counting
// server's.
type Clients struct {
	Metadata  metadata.Interface
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
	// Host names the cluster in errors.
	Host string
}

// Run is action/gc's Collector: kubectl's kubeconfig rules, then Collect.
// It prints nothing: the report, and the names it finds missing, are the
// command line's to print.
func Run(ctx context.Context, o gc.Options) (*gc.Report, error) {
	c, ns, err := Connect(o)
	if err != nil {
		return nil, err
	}
	if o.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	return Collect(ctx, c, ns, o)
}

// Connect loads the kubeconfig as kubectl does (--kubeconfig, else
// KUBECONFIG, else ~/.kube/config; --context) and returns the clients and
// the namespace: -n, else the context's, else "default".
func Connect(o gc.Options) (*Clients, string, error) {
	rules := loadingRules(o)
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	cfg, err := cc.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, "", noKubeconfig(rules)
	}
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns := o.Namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", fmt.Errorf("kubeconfig: %w", err)
		}
	}
	c, err := NewClients(cfg)
	return c, ns, err
}

// noKubeconfig says where gc looked for a kubeconfig and how to give
// one, where client-go would say "try setting KUBERNETES_MASTER".
func noKubeconfig(rules *clientcmd.ClientConfigLoadingRules) error {
	looked := "nowhere: neither KUBECONFIG nor HOME is set"
	switch {
	case rules.ExplicitPath != "":
		looked = rules.ExplicitPath
	case len(rules.Precedence) > 0:
		looked = strings.Join(rules.Precedence, ", ")
		if len(rules.Precedence) > 1 {
			looked = "the files of KUBECONFIG (" + looked + ")"
		}
	}
	return fmt.Errorf("kubeconfig: none found, looked for %s: give one with --kubeconfig FILE or the KUBECONFIG variable, as kubectl takes it", looked)
}

// loadingRules are client-go's defaults (--kubeconfig, else the files
// KUBECONFIG lists, else ~/.kube/config) read from o.Env: client-go's own
// NewDefaultClientConfigLoadingRules reads the process's environment.
func loadingRules(o gc.Options) *clientcmd.ClientConfigLoadingRules {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig}
	env := o.Env
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	if list, _ := env(clientcmd.RecommendedConfigPathEnvVar); list != "" {
		rules.Precedence = filepath.SplitList(list)
	} else if home, _ := env("HOME"); home != "" {
		rules.Precedence = []string{filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
	}
	return rules
}

// NewClients builds the clients for cfg. A first run patches every hashed
// object, one request each: at client-go's default of 5 requests a second
// 10,000 objects would take over half an hour, so, unless the kubeconfig
// sets a rate, gc leaves throttling to the API server's priority and
// fairness, as kubectl does where the server has it, and bounds itself by
// its few workers.
func NewClients(cfg *rest.Config) (*Clients, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS = -1
	}
	cfg.UserAgent = gc.FieldManager
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Clients{Metadata: md, Dynamic: dyn, Discovery: disc, Host: cfg.Host}, nil
}

// Collect lists, plans and (unless o.DryRun) applies, in namespace ns ("":
// every namespace). Every list comes before the first change, so a missing
// list permission changes nothing.
func Collect(ctx context.Context, c *Clients, ns string, o gc.Options) (*gc.Report, error) {
	kinds, err := c.kinds(ctx, o.Custom)
	if err != nil {
		return nil, err
	}
	snap := &gc.Snapshot{}
	for _, k := range kinds {
		if err := c.listReferrers(ctx, k, ns, o, snap); err != nil {
			return nil, err
		}
	}
	for _, r := range hashedResources {
		if err := c.listHashed(ctx, r, ns, snap); err != nil {
			return nil, err
		}
	}
	missing, err := c.missing(ctx, gc.MaybeMissing(snap, ns))
	if err != nil {
		return nil, err
	}
	ds := gc.Plan(snap)
	if !o.DryRun {
		if err := c.apply(ctx, snap, ds); err != nil {
			return nil, err
		}
	}
	r := gc.NewReport(ds, o.DryRun)
	r.Scope(ns, snap)
	r.Missing = missing
	return r, nil
}

// missing are those of maybe that the cluster lacks: a hash-suffixed name
// gc did not list may still be another tool's unlabelled object, so each
// is asked for (metadata only). Most runs ask for none.
func (c *Clients) missing(ctx context.Context, maybe []gc.Missing) ([]gc.Missing, error) {
	var out []gc.Missing
	for _, m := range maybe {
		r := resourceOf(m.Object.Kind)
		_, err := c.Metadata.Resource(r).Namespace(m.Object.Namespace).Get(ctx, m.Object.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, m)
		case err != nil:
			return nil, c.apiError("get", r, m.Object.Namespace, err)
		}
	}
	return out, nil
}

// unverified reports whether err is a TLS verification failure: the
// server answered, with a certificate the kubeconfig does not trust.
func unverified(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci)
}

// apiError names the verb, the resource and where, and says what to do
// about the two errors people meet: a missing permission and a cluster
// out of reach.
func (c *Clients) apiError(verb string, r schema.GroupVersionResource, ns string, err error) error {
	res := r.Resource
	if r.Group != "" {
		res += "." + r.Group
	}
	where := fmt.Sprintf("in namespace %q", ns)
	if ns == "" {
		where = "in all namespaces"
	}
	var ue *url.Error
	var ne net.Error
	switch {
	case unverified(err):
		return fmt.Errorf("gc: %s %s %s: the server's certificate could not be verified (the cluster at %s): %v: the kubeconfig's certificate-authority (or -data) must hold the CA that signed it", verb, res, where, c.Host, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("gc: %s %s %s: %v (docs/gc.md gives the Role gc needs)", verb, res, where, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("gc: %s %s %s: the cluster at %s refused the credentials: %v", verb, res, where, c.Host, err)
	case errors.As(err, &ue), errors.As(err, &ne):
		return fmt.Errorf("gc: %s %s %s: cannot reach the cluster at %s: %v", verb, res, where, c.Host, err)
	}
	return fmt.Errorf("gc: %s %s %s: %w", verb, res, where, err)
}
