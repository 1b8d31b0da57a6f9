// Package zones turns the profile's per-zone host data into pod hostAliases:
// `static` gives every pod one zone's entries, `split` makes one copy of each
// Deployment, StatefulSet and Rollout per zone, each pinned to its zone and
// carrying that zone's entries. /etc/hosts is never written from inside a
// container: kubelet owns that file and rewrites it whenever a container of
// the pod starts, so spec.hostAliases is the only place such lines survive.
package zones

import (
	"net/netip"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// Strategies of zoneHosts.strategy.
const (
	Split  = "split"
	Static = "static"
	Off    = "off"
)

// Suffixes of zoneHosts.suffix: how a split copy's name ends.
const (
	SuffixLastToken  = "last-token"  // after the zone's last '-': ap-northeast-2a -> 2a (the default)
	SuffixZoneLetter = "zone-letter" // the letters ending the zone after a digit or '-': ap-northeast-2a -> a
	SuffixZone       = "zone"        // the whole zone name
)

// ZoneKey is the node label the scheduler knows zones by; pins are read from
// it and split copies require it.
const ZoneKey = "topology.kubernetes.io/zone"

// DefaultLabel is the pod label split copies add to their selector. It is
// the key kubectl users already filter zones by, and on these pods it never
// lies: the copy's required node affinity keeps them in that zone.
const DefaultLabel = ZoneKey

type zone struct {
	name    string
	pos     filepos.Pos
	entries []*alias // merged by address, in address order
	suffix  string   // split only
}

// alias is one address and the hostnames the profile maps to it.
type alias struct {
	addr      netip.Addr
	ip        profiles.Str
	hostnames []profiles.Str // sorted, unique
}

// config is the profile's zone settings, validated.
type config struct {
	strategy string
	zones    []*zone
	byName   map[string]*zone
	owned    map[string]bool // every hostname any zone maps: template entries for these are replaced
	zone     *zone           // static: every pod's zone; split: the zone of workloads that cannot be split
	exclude  map[string]bool
	label    string
	sources  map[string]*manifest.Source
	quote    map[string]bool // every zone name, address and hostname: whether Kubernetes needs it quoted
}

var zoneLetter = regexp.MustCompile(`[0-9-]([a-z]+)$`)

func compile(p *profiles.Profile) (*config, error) {
	c := &config{strategy: Off, byName: map[string]*zone{}, owned: map[string]bool{}, sources: map[string]*manifest.Source{}, quote: map[string]bool{}}
	for _, f := range p.Files {
		c.sources[f] = manifest.NewSource(f, nil)
	}
	errs := c.addZones(p.Zones)
	zh := p.ZoneHosts
	if zh == nil {
		return c, errs.Err()
	}
	c.strategy = zh.Strategy.Value
	errs = append(errs, checkStrategy(zh)...)
	if c.strategy == Off || c.strategy == "" {
		c.strategy = Off
		return c, errs.Err()
	}
	if len(c.zones) == 0 {
		errs = append(errs, filepos.Errorf(zh.Pos, "zoneHosts strategy %s needs at least one zone under zones", c.strategy))
	}
	errs = append(errs, c.setDefaultZone(zh)...)
	c.exclude = map[string]bool{}
	for _, e := range zh.Exclude {
		c.exclude[e.Value] = true
	}
	errs = append(errs, c.setLabel(zh)...)
	switch zh.Suffix.Value {
	case "", SuffixLastToken, SuffixZoneLetter, SuffixZone:
	default:
		errs = append(errs, filepos.Errorf(zh.Suffix.Pos, "unknown zoneHosts suffix %q: want %s (default), %s or %s",
			zh.Suffix.Value, SuffixLastToken, SuffixZoneLetter, SuffixZone))
		return c, errs.Err()
	}
	if c.strategy == Split {
		errs = append(errs, c.suffixes(zh.Suffix.Value)...)
	}
	return c, errs.Err()
}

// addZones compiles the profile's zones and records every name, address and
// hostname they hold: the hostnames are the ones template entries lose.
func (c *config) addZones(zones []profiles.Zone) filepos.List {
	var errs filepos.List
	for i := range zones {
		z, zerrs := compileZone(&zones[i])
		errs = append(errs, zerrs...)
		c.zones = append(c.zones, z)
		c.byName[z.name] = z
		c.quote[z.name] = !manifest.ReadsAsString(z.name)
		for _, a := range z.entries {
			c.quote[a.ip.Value] = !manifest.ReadsAsString(a.ip.Value)
			for _, h := range a.hostnames {
				c.owned[h.Value] = true
				c.quote[h.Value] = !manifest.ReadsAsString(h.Value)
			}
		}
	}
	return errs
}

// checkStrategy reports a missing or unknown zoneHosts strategy.
func checkStrategy(zh *profiles.ZoneHosts) filepos.List {
	switch zh.Strategy.Value {
	case Split, Static, Off:
		return nil
	case "":
		return filepos.List{filepos.Errorf(zh.Pos, "zoneHosts needs a strategy: split, static or off")}
	}
	return filepos.List{filepos.Errorf(zh.Strategy.Pos, "unknown zoneHosts strategy %q: want split, static or off", zh.Strategy.Value)}
}

// setDefaultZone reads zoneHosts.zone, which static needs for every pod.
func (c *config) setDefaultZone(zh *profiles.ZoneHosts) filepos.List {
	if zh.Zone.Value != "" {
		if c.zone = c.byName[zh.Zone.Value]; c.zone == nil && len(c.zones) > 0 {
			return filepos.List{filepos.Errorf(zh.Zone.Pos, "zone %q is not defined under zones (defined: %s)", zh.Zone.Value, c.names())}
		}
	} else if c.strategy == Static {
		return filepos.List{filepos.Errorf(zh.Strategy.Pos, "strategy static needs zoneHosts.zone: the zone whose hostAliases every pod gets")}
	}
	return nil
}

// setLabel reads zoneHosts.label, the label key the split copies carry.
func (c *config) setLabel(zh *profiles.ZoneHosts) filepos.List {
	c.label = DefaultLabel
	if zh.Label.Value == "" {
		return nil
	}
	c.label = zh.Label.Value
	if msgs := validation.IsQualifiedName(c.label); len(msgs) > 0 {
		return filepos.List{filepos.Errorf(zh.Label.Pos, "zoneHosts.label %q is not a valid label key: %s", c.label,
			reason(msgs, "an optional DNS subdomain and '/', then letters, digits, '-', '_' and '.', starting and ending with a letter or digit"))}
	}
	return nil
}

func compileZone(pz *profiles.Zone) (*zone, filepos.List) {
	var errs filepos.List
	z := &zone{name: pz.Name, pos: pz.Pos}
	if pz.Name == "" {
		errs = append(errs, filepos.Errorf(pz.Pos, "a zone name must not be empty"))
	} else if msgs := validation.IsValidLabelValue(pz.Name); len(msgs) > 0 {
		errs = append(errs, filepos.Errorf(pz.Pos, "zone name %q is not a valid label value (the node label %s holds it): %s", pz.Name, ZoneKey,
			reason(msgs, "letters, digits, '-', '_' and '.', starting and ending with a letter or digit")))
	}
	byAddr := map[netip.Addr]*alias{}
	ipOf := map[string]profiles.Str{} // hostname -> the ip it was first mapped to
	for _, ha := range pz.HostAliases {
		if ha.IP.Value == "" {
			errs = append(errs, filepos.Errorf(ha.Pos, "hostAliases entry of zone %s needs an ip", pz.Name))
			continue
		}
		addr, err := netip.ParseAddr(ha.IP.Value)
		if err != nil {
			errs = append(errs, filepos.Errorf(ha.IP.Pos, "ip %q is not an IP address", ha.IP.Value))
			continue
		}
		if addr.Zone() != "" {
			errs = append(errs, filepos.Errorf(ha.IP.Pos, "ip %q has an IPv6 zone index, which Kubernetes does not accept in hostAliases", ha.IP.Value))
			continue
		}
		if len(ha.Hostnames) == 0 {
			errs = append(errs, filepos.Errorf(ha.Pos, "hostAliases entry for %s needs at least one hostname", ha.IP.Value))
			continue
		}
		a := byAddr[addr]
		if a == nil {
			a = &alias{addr: addr, ip: ha.IP}
			byAddr[addr] = a
			z.entries = append(z.entries, a)
		}
		for _, h := range ha.Hostnames {
			if msgs := validation.IsDNS1123Subdomain(h.Value); len(msgs) > 0 {
				errs = append(errs, filepos.Errorf(h.Pos, "hostname %q is not a valid DNS name: %s", h.Value, reason(msgs, dnsName)))
				continue
			}
			if first, dup := ipOf[h.Value]; dup {
				if other, _ := netip.ParseAddr(first.Value); other != addr {
					errs = append(errs, filepos.Errorf(h.Pos, "hostname %s is already mapped to %s in zone %s (line %d); /etc/hosts would use only one of them",
						h.Value, first.Value, pz.Name, first.Pos.Line))
				}
				continue // the same pair twice says nothing new
			}
			ipOf[h.Value] = ha.IP
			a.hostnames = append(a.hostnames, h)
		}
	}
	sort.Slice(z.entries, func(i, j int) bool { return z.entries[i].addr.Less(z.entries[j].addr) })
	for _, a := range z.entries {
		sort.Slice(a.hostnames, func(i, j int) bool { return a.hostnames[i].Value < a.hostnames[j].Value })
	}
	return z, errs
}

// suffixes names each zone's split copies and checks the names can be told apart.
func (c *config) suffixes(how string) filepos.List {
	var errs filepos.List
	seen := map[string]*zone{}
	for _, z := range c.zones {
		switch how {
		case "", SuffixLastToken:
			z.suffix = z.name[strings.LastIndexByte(z.name, '-')+1:]
		case SuffixZone:
			z.suffix = z.name
		case SuffixZoneLetter:
			m := zoneLetter.FindStringSubmatch(z.name)
			if m == nil {
				errs = append(errs, filepos.Errorf(z.pos, "zone %s does not end in a letter after a digit or '-', so suffix %s cannot name its copies", z.name, SuffixZoneLetter))
				continue
			}
			z.suffix = m[1]
		}
		if z.name == "" {
			continue // already reported
		}
		if msgs := validation.IsDNS1123Label(z.suffix); len(msgs) > 0 {
			errs = append(errs, filepos.Errorf(z.pos, "split copies for zone %s would end in -%s, which cannot be part of an object name: %s", z.name, z.suffix,
				reason(msgs, "lower-case letters, digits and '-', starting and ending with a letter or digit")))
			continue
		}
		if prev := seen[z.suffix]; prev != nil {
			errs = append(errs, filepos.Errorf(z.pos, "zones %s and %s would both name their split copies <name>-%s; choose another zoneHosts.suffix", prev.name, z.name, z.suffix))
			continue
		}
		seen[z.suffix] = z
	}
	return errs
}

const dnsName = "lower-case letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit (RFC 1123)"

// reason keeps a validation message that says what is wrong (a length, say)
// and replaces the generic ones, which quote a regular expression, with a
// plain description of what is allowed.
func reason(msgs []string, allowed string) string {
	if strings.Contains(msgs[0], "regex used for validation") {
		return "want " + allowed
	}
	return msgs[0]
}

func (c *config) names() string {
	var n []string
	for _, z := range c.zones {
		n = append(n, z.name)
	}
	return strings.Join(n, ", ")
}

// str is manifest.KubeString for the profile's own strings, decided once
// per run rather than once per copy.
func (c *config) str(v string) *yaml.Node {
	q, ok := c.quote[v]
	if !ok {
		return manifest.KubeString(v)
	}
	n := manifest.String(v)
	if q {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// source is the profile file a position names. The map is only read after
// compile, so units may be rendered concurrently.
func (c *config) source(file string) *manifest.Source {
	if s := c.sources[file]; s != nil {
		return s
	}
	return manifest.NewSource(file, nil)
}
