package output

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/afero"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render"
)

// ObjectFile is where -o DIR puts an object: <tenant>/<kind>-<name>.yaml,
// with the name as written (before a content hash).
func ObjectFile(tenant string, o *manifest.Object) string {
	base := o.Name()
	if o.BaseName != "" {
		base = o.BaseName
	}
	name := sanitize(strings.ToLower(o.Kind())) + "-" + sanitize(base)
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
	name      string
	kind, obj string
	pos       filepos.Pos
	text      []byte
}

func marshalFiles(s *manifest.Set) ([]objectFile, error) {
	out := make([]objectFile, 0, len(s.Objects))
	for _, o := range s.Objects {
		b, err := manifest.MarshalObject(o)
		if err != nil {
			return nil, err
		}
		out = append(out, objectFile{ObjectFile(s.Tenant, o), o.Kind(), o.Name(), o.Pos(o.Node), b})
	}
	return out, nil
}

// eachFile renders one file per object and hands them to f in output order,
// rejecting two objects that would land in the same file.
func eachFile(e *render.Engine, f func(name string, text []byte) error) (*render.Result, error) {
	from := map[string]filepos.Pos{}
	return render.Map(e, marshalFiles, func(files []objectFile) error {
		for _, o := range files {
			if prev, dup := from[o.name]; dup {
				return filepos.Errorf(o.pos, "%s %q is rendered twice into %s (first from %s); names must be unique per tenant",
					o.kind, o.obj, o.name, prev)
			}
			from[o.name] = o.pos
			if err := f(o.name, o.text); err != nil {
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
	res, err := eachFile(e, func(name string, text []byte) error {
		files[name] = text
		order = append(order, name)
		return nil
	})
	return files, order, res, err
}

// WriteDir writes one file per object under dir, atomically: into a
// temporary sibling directory that replaces dir only when all succeeded.
// Files are written as units finish, so memory does not grow with the fleet.
func (w Writer) WriteDir(e *render.Engine, dir string) (*render.Result, error) {
	fsys := w.fs()
	var res *render.Result
	err := replaceDirWith(fsys, dir, func(tmp string) error {
		var err error
		res, err = eachFile(e, func(name string, text []byte) error { return writeFile(fsys, tmp, name, text) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func writeFile(fsys afero.Fs, root, name string, text []byte) error {
	p := filepath.Join(root, name)
	if err := fsys.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return afero.WriteFile(fsys, p, text, 0o644)
}

// replaceDirWith has fill write into a temporary sibling of dir, then swaps
// it in with renames; dir is untouched when fill fails.
func replaceDirWith(fsys afero.Fs, dir string, fill func(tmp string) error) error {
	dir = filepath.Clean(dir)
	// A link would be replaced, not followed, and a file deleted: refused.
	if fi, err := lstat(fsys, dir); err == nil && !fi.IsDir() {
		what := "a file"
		if fi.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link; krender replaces DIR whole, so it would replace the link rather than write where it points"
		}
		return filepos.Errorf(filepos.Pos{File: dir}, "the output directory is %s: give a directory, or a path that does not exist yet", what)
	}
	parent := filepath.Dir(dir)
	if err := fsys.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := afero.TempDir(fsys, parent, "."+filepath.Base(dir)+".new-")
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

// lstat does not follow a link where the file system can tell one.
func lstat(fsys afero.Fs, name string) (os.FileInfo, error) {
	if l, ok := fsys.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(name)
		return fi, err
	}
	return fsys.Stat(name)
}
