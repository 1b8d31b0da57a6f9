package zones

import (
	"net/netip"
	"sort"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// hostEntry is one address of the output and its hostname nodes by name.
type hostEntry struct {
	addr  netip.Addr
	ip    *yaml.Node
	names map[string]*yaml.Node
}

// hostTable is the output's entries by address.
type hostTable map[netip.Addr]*hostEntry

// add keeps the first node seen for each hostname of an address, so a
// template entry wins over the profile's and its position is kept.
func (t hostTable) add(addr netip.Addr, ip *yaml.Node, name string, hn *yaml.Node) {
	e := t[addr]
	if e == nil {
		e = &hostEntry{addr: addr, ip: ip, names: map[string]*yaml.Node{}}
		t[addr] = e
	}
	if _, dup := e.names[name]; !dup {
		e.names[name] = hn
	}
}

// sorted is the entries in numeric address order, the order written out.
func (t hostTable) sorted() []*hostEntry {
	entries := make([]*hostEntry, 0, len(t))
	for _, e := range t {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].addr.Less(entries[j].addr) })
	return entries
}

// setHostAliases gives a pod spec the zone's entries. Template entries for
// hostnames the profile maps (in any zone) are dropped, which is how
// hand-written per-zone or PRIMARY/SECONDARY entries are converted; the rest
// are kept. The result is one entry per address, addresses in numeric order,
// hostnames sorted, no pair twice. Template nodes are reused so positions
// still name the template.
func (c *config) setHostAliases(o *manifest.Object, spec *yaml.Node, z *zone) error {
	table := hostTable{}
	ha := manifest.Value(spec, "hostAliases")
	if err := c.keepTemplateAliases(o, ha, table); err != nil {
		return err
	}
	for _, a := range z.entries {
		ip := c.profileScalar(o, a.ip.Value, a.ip)
		for _, h := range a.hostnames {
			table.add(a.addr, ip, h.Value, c.profileScalar(o, h.Value, h))
		}
	}
	defer o.MadeEntry(StageName, spec, "hostAliases")
	entries := table.sorted()
	if len(entries) == 0 {
		manifest.Delete(spec, "hostAliases")
		return nil
	}
	// The list stands where the template's stood, else at the zone in the profile.
	list := seq()
	if ha != nil {
		samePlace(o, list, ha)
	} else {
		c.place(o, list, z.pos)
	}
	for _, e := range entries {
		list.Content = append(list.Content, e.node(o))
	}
	manifest.Put(spec, "hostAliases", list)
	return nil
}

// keepTemplateAliases adds to table the template's entries for hostnames no
// zone maps; ha is the template's hostAliases, nil when it has none.
func (c *config) keepTemplateAliases(o *manifest.Object, ha *yaml.Node, table hostTable) error {
	if ha == nil || ha.Tag == "!!null" {
		return nil
	}
	if ha.Kind != yaml.SequenceNode {
		return filepos.Errorf(o.Pos(ha), "hostAliases must be a list")
	}
	var errs filepos.List
	for _, item := range ha.Content {
		if err := c.keepTemplateEntry(o, item, table); err != nil {
			errs = append(errs, err)
		}
	}
	return errs.Err()
}

// keepTemplateEntry adds one template entry's hostnames that no zone maps.
func (c *config) keepTemplateEntry(o *manifest.Object, item *yaml.Node, table hostTable) *filepos.Error {
	ipn := manifest.Value(item, "ip")
	if item.Kind != yaml.MappingNode || ipn == nil || ipn.Kind != yaml.ScalarNode {
		return filepos.Errorf(o.Pos(item), "a hostAliases entry must be a mapping with an ip")
	}
	addr, err := netip.ParseAddr(ipn.Value)
	if err != nil || addr.Zone() != "" {
		return filepos.Errorf(o.Pos(ipn), "hostAliases ip %q is not an IP address", ipn.Value)
	}
	names := manifest.Value(item, "hostnames")
	if names == nil || names.Tag == "!!null" {
		return nil
	}
	if names.Kind != yaml.SequenceNode {
		return filepos.Errorf(o.Pos(names), "hostAliases hostnames must be a list")
	}
	for _, hn := range names.Content {
		if hn.Kind == yaml.ScalarNode && !c.owned[hn.Value] {
			table.add(addr, ipn, hn.Value, hn)
		}
	}
	return nil
}

// node is the entry as written: its ip, then its hostnames sorted.
func (e *hostEntry) node(o *manifest.Object) *yaml.Node {
	names := make([]string, 0, len(e.names))
	for n := range e.names {
		names = append(names, n)
	}
	sort.Strings(names)
	hostnames := seq()
	for _, n := range names {
		hostnames.Content = append(hostnames.Content, e.names[n])
	}
	entry := samePlace(o, mapping(), e.ip)
	entry.Content = []*yaml.Node{manifest.String("ip"), e.ip, manifest.String("hostnames"), hostnames}
	return entry
}

// profileScalar is a new string node that reports the profile position it
// came from, so later stages name the profile, not the template.
func (c *config) profileScalar(o *manifest.Object, v string, from profiles.Str) *yaml.Node {
	return c.place(o, c.str(v), from.Pos)
}

// place records that the new node n was written at pos in the profile.
func (c *config) place(o *manifest.Object, n *yaml.Node, pos filepos.Pos) *yaml.Node {
	return o.PlaceAt(n, c.source(pos.File), pos.Line, pos.Col)
}

// samePlace gives the new, childless node n the position of like, in
// whichever file like was written.
func samePlace(o *manifest.Object, n, like *yaml.Node) *yaml.Node {
	return o.PlaceLike(n, like)
}
