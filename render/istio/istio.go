// Package istio is the stage that keeps a pod's /etc/hosts writes from racing
// the istio proxy: kubelet rewrites /etc/hosts as the pod's containers start,
// so an app that starts before the proxy loses its line.
package istio

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
)

// StageName marks the nodes this stage makes (manifest.Object.Made).
const StageName = "istio"

const holdKey = "holdApplicationUntilProxyStarts"

// hostsWriter is a container whose start writes /etc/hosts, and where.
type hostsWriter struct {
	container string
	pos       filepos.Pos
}

// Guard handles pods with an istio sidecar whose containers write
// /etc/hosts: istio's holdApplicationUntilProxyStarts orders the start.
// krender sets it (and says so) or, with the profile's istioGuard off
// (On false), refuses the pod. It runs after injection, which adds such
// writers.
type Guard struct{ On bool }

func (g Guard) Apply(s *manifest.Set) error {
	var errs filepos.List
	for _, o := range s.Objects {
		tpl, spec := workload.PodTemplate(o), workload.PodSpec(o)
		if spec == nil || !workload.HasIstioSidecar(o) {
			continue
		}
		writers := hostsWriters(o, spec)
		if len(writers) == 0 {
			continue
		}
		ann := manifest.Lookup(tpl, "metadata", "annotations")
		cfg := manifest.Value(ann, workload.IstioConfigAnnotation)
		doc, held, err := proxyConfig(o, cfg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if held {
			continue
		}
		if !g.On {
			for _, w := range writers {
				errs = append(errs, filepos.Errorf(w.pos, "%s %s: container %s writes /etc/hosts in a pod with an istio sidecar; kubelet rewrites "+
					"/etc/hosts as containers start, so the line is lost unless istio holds the app until the proxy has started: set %s: true "+
					"in the pod's %s annotation (istioGuard is off, so krender does not)", o.Kind(), o.Name(), w.container, holdKey, workload.IstioConfigAnnotation))
			}
			continue
		}
		if err := setHold(o, tpl, cfg, doc); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, w := range writers {
			s.Note(o, ruleid.IstioHoldAdded, filepos.Info, w.pos, fmt.Sprintf("%s %s: container %s writes /etc/hosts in a pod with an istio sidecar; krender set %s: true "+
				"in the pod's %s annotation so that the app starts after the proxy and kubelet's rewrite of /etc/hosts does not drop the line",
				o.Kind(), o.Name(), w.container, holdKey, workload.IstioConfigAnnotation))
		}
	}
	return errs.Err()
}

// hostsWriters finds the containers whose scripts write /etc/hosts, the
// first such place of each.
func hostsWriters(o *manifest.Object, spec *yaml.Node) []hostsWriter {
	var out []hostsWriter
	for _, c := range workload.Containers(spec) {
		for _, n := range workload.Scripts(c) {
			if loc := workload.EtcHostsWrite(n.Value); loc != nil {
				pos := o.SourceOf(n).TextPositions(n, []string{n.Value[loc[0]:loc[1]]})[0]
				out = append(out, hostsWriter{container: manifest.ScalarAt(c, "name"), pos: pos})
				break
			}
		}
	}
	return out
}

// proxyConfig parses the pod's proxy.istio.io/config annotation, which is
// YAML inside a string, and reports whether it already holds the app.
func proxyConfig(o *manifest.Object, cfg *yaml.Node) (*yaml.Node, bool, *filepos.Error) {
	if cfg == nil || strings.TrimSpace(withoutComments(cfg.Value)) == "" {
		return nil, false, nil
	}
	var doc yaml.Node
	if err := yaml.Load([]byte(cfg.Value), &doc); err != nil {
		return nil, false, filepos.Errorf(o.Pos(cfg), "%s %s: annotation %s is not valid YAML: %s", o.Kind(), o.Name(), workload.IstioConfigAnnotation,
			strings.TrimPrefix(err.Error(), "yaml: "))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, false, filepos.Errorf(o.Pos(cfg), "%s %s: annotation %s must hold a YAML mapping of proxy settings", o.Kind(), o.Name(), workload.IstioConfigAnnotation)
	}
	v := manifest.Value(root, holdKey)
	switch {
	case v == nil:
		return &doc, false, nil
	case v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && strings.EqualFold(v.Value, "true"):
		return &doc, true, nil
	}
	return nil, false, filepos.Errorf(o.Pos(cfg), "%s %s: annotation %s sets %s to %q, but a container of this pod writes /etc/hosts "+
		"and loses the line if it starts before the istio proxy: set it to true or remove it", o.Kind(), o.Name(), workload.IstioConfigAnnotation, holdKey, v.Value)
}

// setHold writes holdApplicationUntilProxyStarts: true into the annotation,
// keeping its other settings, their order and comments.
func setHold(o *manifest.Object, tpl, cfg, doc *yaml.Node) *filepos.Error {
	line := holdKey + ": true\n"
	if cfg == nil {
		ann := manifest.Ensure(manifest.Ensure(tpl, "metadata"), "annotations")
		manifest.Put(ann, workload.IstioConfigAnnotation, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: line})
		o.MadeEntry(StageName, tpl, "metadata")
		return nil
	}
	if doc == nil { // empty, or comments only
		text := strings.TrimRight(cfg.Value, "\n")
		if text != "" {
			text += "\n"
		}
		cfg.Value, cfg.Tag, cfg.Style = text+line, "!!str", yaml.LiteralStyle
		return nil
	}
	root := doc.Content[0]
	root.Content = append(root.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: holdKey},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	var b bytes.Buffer
	d, err := yaml.NewDumper(&b, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithCompactSeqIndent(false), yaml.WithLineWidth(-1))
	if err == nil {
		err = d.Dump(doc)
	}
	if err == nil {
		err = d.Close()
	}
	if err != nil {
		return filepos.Errorf(o.Pos(cfg), "%s %s: cannot rewrite annotation %s: %v", o.Kind(), o.Name(), workload.IstioConfigAnnotation, err)
	}
	text := b.String()
	cfg.Tag = "!!str"
	if strings.Contains(strings.TrimRight(text, "\n"), "\n") {
		cfg.Style = yaml.LiteralStyle
	} else {
		text = strings.TrimRight(text, "\n") // a flow mapping stays on its one line
	}
	cfg.Value = text
	return nil
}

func withoutComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
