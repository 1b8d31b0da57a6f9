package output

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// ObjectFile is where -o DIR puts an object: <tenant>/<kind>-<name>.yaml,
// with the name as written (before a content hash). When objects of one
// kind and name live in several namespaces of a tenant, each one's file is
// <kind>-<name>_<namespace>.yaml instead (see fileFor).
func ObjectFile(tenant string, o *manifest.Object) string { return fileFor(tenant, o, "") }

// fileFor is ObjectFile with the namespace ns, when not "", added after an
// underscore: Kubernetes names and namespaces never hold one, so the file of
// x in namespace a cannot be that of an object named x_a, or x.a.
func fileFor(tenant string, o *manifest.Object, ns string) string {
	base := o.Name()
	if o.BaseName != "" {
		base = o.BaseName
	}
	name := sanitize(strings.ToLower(o.Kind())) + "-" + sanitize(base)
	if ns != "" {
		name += "_" + sanitize(ns)
	}
	if len(name) > maxFileName-len(".yaml") { // file systems refuse longer names
		sum := sha256.Sum256([]byte(name))
		name = name[:maxFileName-len(".yaml")-9] + "-" + hex.EncodeToString(sum[:4])
	}
	name += ".yaml"
	if tenant == "" {
		return name
	}
	return filepath.Join(sanitize(tenant), name)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// maxFileName is the longest file name Linux, macOS and Windows accept.
const maxFileName = 255

func sanitize(s string) string {
	s = unsafeName.ReplaceAllString(s, "_")
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// objectFile is one object of -o DIR output.
type objectFile struct {
	name          string
	kind, obj, ns string
	pos           filepos.Pos
	text          []byte
}

func marshalFiles(s *manifest.Set) ([]objectFile, error) {
	// Objects whose files would share a name but live in different
	// namespaces each get their namespace in the name; all of them, so that
	// the names do not depend on the order of the templates.
	names := make([]string, len(s.Objects))
	spaces := map[string]map[string]bool{}
	for i, o := range s.Objects {
		names[i] = ObjectFile(s.Tenant, o)
		if spaces[names[i]] == nil {
			spaces[names[i]] = map[string]bool{}
		}
		spaces[names[i]][s.NamespaceOf(o)] = true
	}
	out := make([]objectFile, 0, len(s.Objects))
	for i, o := range s.Objects {
		if err := s.Stopped(); err != nil {
			return nil, err
		}
		b, err := manifest.MarshalObject(o)
		if err != nil {
			return nil, err
		}
		name := names[i]
		if len(spaces[name]) > 1 {
			name = fileFor(s.Tenant, o, s.NamespaceOf(o))
		}
		out = append(out, objectFile{name, o.Kind(), o.Name(), s.NamespaceOf(o), o.Pos(o.Node), b})
	}
	return out, nil
}

// eachFile renders one file per object and hands them to f in output order,
// rejecting two objects that would land in the same file.
func eachFile(e *render.Engine, f func(objectFile) error) (*render.Result, error) {
	from := map[string]filepos.Pos{}
	return render.Map(e, marshalFiles, func(files []objectFile) error {
		for _, o := range files {
			if prev, dup := from[o.name]; dup {
				return filepos.Errorf(o.pos, "%s %q (namespace %s) is rendered twice into %s (first from %s); kind, namespace and name must be unique per tenant",
					o.kind, o.obj, o.ns, o.name, prev)
			}
			from[o.name] = o.pos
			if err := f(o); err != nil {
				return err
			}
		}
		return nil
	})
}

// Files renders everything as one file per object, keyed by relative path.
func Files(e *render.Engine) (map[string][]byte, []string, *render.Result, error) {
	files := map[string][]byte{}
	var order []string
	res, err := eachFile(e, func(o objectFile) error {
		files[o.name] = o.text
		order = append(order, o.name)
		return nil
	})
	return files, order, res, err
}

// WriteDir writes one file per object under dir, atomically: into a
// temporary sibling directory that replaces dir only when all succeeded.
// Files are written as units finish, so memory does not grow with the fleet.
// dir must be new, empty, or hold only what krender wrote there before (its
// Marker lists it), and must not be or hold the current directory or an
// input (w.Guard): anything else is refused before anything is written.
func (w Writer) WriteDir(e *render.Engine, dir string) (*render.Result, error) {
	fsys := w.fs()
	var res *render.Result
	err := w.replaceDirWith(dir, func(tmp string) error {
		var names []string
		var err error
		res, err = eachFile(e, func(o objectFile) error {
			if err := w.stopped(); err != nil {
				return err
			}
			names = append(names, o.name)
			return writeFile(fsys, tmp, o.name, o.text)
		})
		if err != nil {
			return err
		}
		return writeMarker(fsys, tmp, names)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func writeFile(fsys filesys.FileSystem, root, name string, text []byte) error {
	p := filepath.Join(root, name)
	if err := fsys.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return fsys.WriteFile(p, text, 0o644)
}

// replaceDirWith has fill write into a temporary sibling of dir, then swaps
// it in with renames; dir is untouched when fill fails, when w may not
// replace it (checkDir), before fill and again just before the swap, and
// when w is stopped before the swap. The sibling is removed in every case.
func (w Writer) replaceDirWith(dir string, fill func(tmp string) error) error {
	fsys := w.fs()
	dir = filepath.Clean(dir)
	if err := w.checkDir(dir); err != nil {
		return err
	}
	if err := w.stopped(); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := fsys.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := fsys.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer fsys.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := fsys.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := w.checkDir(dir); err != nil { // changed while rendering
		return err
	}
	if err := w.stopped(); err != nil {
		return err
	}
	old := ""
	if _, err := fsys.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := fsys.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := fsys.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = fsys.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return fsys.RemoveAll(old)
	}
	return nil
}
