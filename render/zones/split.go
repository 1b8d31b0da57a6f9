package zones

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
)

// maxStatefulSetName keeps a StatefulSet's pods creatable: their
// controller-revision-hash label is the name, '-' and a hash of up to 10
// characters, and a label value holds at most 63.
const maxStatefulSetName = 52

// split makes one copy of o per zone, in profile order. Each copy is a
// Clone, so every node keeps the template position it was written at.
func (c *config) split(s *manifest.Set, o *manifest.Object) ([]*manifest.Object, error) {
	specKey, spec := manifest.KeyValue(o.Node, "spec")
	if sel := manifest.Value(spec, "selector"); sel == nil || sel.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(o.Pos(specKey), "%s %s has no spec.selector: split by zone adds %s to it so that each zone copy owns only its own pods",
			o.Kind(), o.Name(), c.label)
	}
	pod := workload.PodSpec(o)
	var errs filepos.List
	if err := named(o); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.unschedulable(o, pod)...)
	replicas := manifest.Value(spec, "replicas")
	counts, err := c.divide(s, o, replicas, "replicas", true)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if k, vct := manifest.KeyValue(spec, "volumeClaimTemplates"); o.Kind() == "StatefulSet" && vct != nil && len(vct.Content) > 0 {
		s.Note(o, ruleid.SplitClaims, filepos.Warning, o.Pos(k), fmt.Sprintf("StatefulSet %s is split by zone: each copy gets new PersistentVolumeClaims named after it; the claims of %s are not reused",
			o.Name(), o.Name()))
	}
	copies := make([]*manifest.Object, len(c.zones))
	for i, z := range c.zones {
		cp := o.Clone()
		cp.Zone, cp.SplitFrom = z.name, o.Name()
		name := c.rename(cp, z)
		if err := checkName(cp, name); err != nil && len(errs) == 0 { // one bad name per workload says it all
			errs = append(errs, err)
		}
		cspec := manifest.Value(cp.Node, "spec")
		c.addLabel(manifest.Ensure(cspec, "selector"), "matchLabels", z)
		c.addLabel(manifest.Ensure(workload.PodTemplate(cp), "metadata"), "labels", z)
		cpod := workload.PodSpec(cp)
		c.requireZone(cpod, z.name)
		if err := c.setHostAliases(cp, cpod, z); err != nil {
			return nil, err // the template's entries are wrong in every copy alike
		}
		if counts != nil {
			setInt(manifest.Value(cspec, "replicas"), counts[i])
		}
		cp.Made(StageName, cp.Node) // labels, affinity
		copies[i] = cp
	}
	return copies, errs.Err()
}

// unschedulable reports each zone o's pods may not run in: its copy there
// could never start.
func (c *config) unschedulable(o *manifest.Object, pod *yaml.Node) filepos.List {
	var errs filepos.List
	for _, z := range c.zones {
		if !allows(pod, z.name) {
			at, _ := manifest.KeyValue(manifest.Lookup(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
			errs = append(errs, filepos.Errorf(o.Pos(at), "%s %s may not run in zone %s, so its copy for that zone could never be scheduled: "+
				"pin it to one zone, allow every zone of the profile, or list it under zoneHosts.exclude", o.Kind(), o.Name(), z.name))
		}
	}
	return errs
}

func checkName(cp *manifest.Object, name string) *filepos.Error {
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return filepos.Errorf(namePos(cp), "zone copy name %s is not a valid object name: %s", name, reason(msgs, dnsName))
	}
	if cp.Kind() == "StatefulSet" && len(name) > maxStatefulSetName {
		return filepos.Errorf(namePos(cp), "StatefulSet zone copy name %s has %d characters; at most %d leave room for the controller-revision-hash label of its pods",
			name, len(name), maxStatefulSetName)
	}
	return nil
}

// splitHPA makes one HorizontalPodAutoscaler per zone copy of the workload
// it scales, dividing its bounds; each copy scales its own zone.
func (c *config) splitHPA(s *manifest.Set, hpa *manifest.Object, w *splitResult) ([]*manifest.Object, error) {
	spec := manifest.Value(hpa.Node, "spec")
	var errs filepos.List
	if err := named(hpa); err != nil {
		errs = append(errs, err)
	}
	bounds := map[string][]int{}
	for _, field := range []string{"minReplicas", "maxReplicas"} {
		n, err := c.divide(s, hpa, manifest.Value(spec, field), field, false)
		if err != nil {
			errs = append(errs, err)
		}
		bounds[field] = n
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	copies := make([]*manifest.Object, len(c.zones))
	for i, z := range c.zones {
		cp := hpa.Clone()
		cp.Zone, cp.SplitFrom = z.name, hpa.Name()
		c.rename(cp, z)
		cspec := manifest.Value(cp.Node, "spec")
		manifest.Lookup(cspec, "scaleTargetRef", "name").Value = w.copies[i].Name()
		for field, n := range bounds {
			if n != nil {
				setInt(manifest.Value(cspec, field), n[i])
			}
		}
		cp.Made(StageName, cp.Node) // labels
		copies[i] = cp
	}
	return copies, nil
}

// rename names a copy after its zone and labels it with the zone, so that
// `kubectl get -l` finds a zone's objects as it finds its pods.
func (c *config) rename(cp *manifest.Object, z *zone) string {
	md := manifest.Value(cp.Node, "metadata")
	n := manifest.Value(md, "name")
	n.Value += "-" + z.suffix
	n.Tag = "!!str"
	c.addLabel(md, "labels", z)
	return n.Value
}

// named makes sure o has a name to suffix.
func named(o *manifest.Object) *filepos.Error {
	if n := manifest.Lookup(o.Node, "metadata", "name"); n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
		at := o.Node
		if k, _ := manifest.KeyValue(o.Node, "metadata"); k != nil {
			at = k
		}
		return filepos.Errorf(o.Pos(at), "%s without metadata.name cannot be split by zone: its copies are named <name>-<zone>", o.Kind())
	}
	return nil
}

func (c *config) addLabel(m *yaml.Node, key string, z *zone) {
	manifest.Put(manifest.Ensure(m, key), c.label, c.str(z.name))
}

// divide reads a count and shares it out over the zones, the remainder to
// the first zones and no share below 1; with zeroStays a total of 0 gives
// 0s, which keeps a scaled-down workload down. It is nil when n is absent.
// When the floor makes the shares add up to more than n, a note says so.
func (c *config) divide(s *manifest.Set, o *manifest.Object, n *yaml.Node, field string, zeroStays bool) ([]int, *filepos.Error) {
	if n == nil || n.Tag == "!!null" {
		return nil, nil // unset: Kubernetes' default of 1 holds for each copy too
	}
	total, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil || total < 0 {
		found := fmt.Sprintf("%q", n.Value)
		if n.Tag == "!!str" {
			found = "the string " + found
		}
		return nil, filepos.Errorf(o.Pos(n), "%s of %s %s must be a whole number to be divided by zone, found %s", field, o.Kind(), o.Name(), found)
	}
	floor := 1
	if zeroStays && total == 0 {
		floor = 0
	}
	shares := Divide(total, len(c.zones), floor)
	sum := 0
	var parts []string
	for _, v := range shares {
		sum += v
		parts = append(parts, strconv.Itoa(v))
	}
	if sum > total {
		s.Note(o, ruleid.SplitReplicasFloor, filepos.Info, o.Pos(n), fmt.Sprintf("%s %s: %s %d over %d zones gives %s (%d in all): every zone copy keeps at least %d",
			o.Kind(), o.Name(), field, total, len(c.zones), strings.Join(parts, ", "), sum, floor))
	}
	return shares, nil
}

// Divide shares total out over k parts: total/k each, one more for the first
// total%k, and none below floor.
func Divide(total, k, floor int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = total / k
		if i < total%k {
			out[i]++
		}
		out[i] = max(out[i], floor)
	}
	return out
}

func setInt(n *yaml.Node, v int) {
	n.Value, n.Tag, n.Style = strconv.Itoa(v), "!!int", 0
}
