package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
)

// Result is what a run produced besides the manifests: notes for stderr,
// deduplicated across tenants.
type Result struct {
	Notes []filepos.Note
	seen  map[string]bool
}

func (r *Result) add(notes []filepos.Note) {
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	for _, n := range notes {
		if k := n.String(); !r.seen[k] {
			r.seen[k] = true
			r.Notes = append(r.Notes, n)
		}
	}
}

// renderAt renders unit i, naming the tenant in its errors.
func (e *Engine) renderAt(i int) (*manifest.Set, error) {
	u := e.Units[i]
	s, err := e.Render(u)
	if err != nil {
		return nil, inTenant(redactErr(err, redactor(e.secret, u.Vars.Map())), u.Tenant)
	}
	return s, nil
}

// each renders the units in parallel, turns each set into a T on the same
// goroutine (so that encoding is parallel too), and hands those to emit in
// unit order. Output therefore does not depend on the number of workers.
func each[T any](e *Engine, res *Result, conv func(*manifest.Set) (T, error), emit func(T) error) error {
	type unit struct {
		notes []filepos.Note
		v     T
		n     int // objects, counted against limits.objects
	}
	total := 0
	return inOrder(len(e.Units), e.workers(), e.window(),
		func(i int) (unit, error) {
			s, err := e.renderAt(i)
			if err != nil {
				return unit{}, err
			}
			v, err := conv(s)
			return unit{s.Notes, v, len(s.Objects)}, err
		},
		func(i int, u unit) error {
			if total+u.n > e.limits.OrDefault().Objects {
				// Rendered again for the position, on this error path only:
				// holding every unit's objects until emit costs memory.
				s, err := e.renderAt(i)
				if err != nil {
					return err
				}
				return inTenant(e.objectLimit(total, s.Objects), e.Units[i].Tenant)
			}
			total += u.n
			res.add(u.notes)
			return emit(u.v)
		})
}

// Each renders every unit and hands each set to f, in unit order and on the
// calling goroutine; the units themselves render in parallel.
func (e *Engine) Each(f func(*manifest.Set) error) (*Result, error) {
	res := &Result{}
	err := each(e, res, func(s *manifest.Set) (*manifest.Set, error) { return s, nil }, f)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// encoded is one unit's part of the output stream.
type encoded struct {
	sep  string // what goes before it when other documents precede it
	body []byte
}

// encodeSet encodes one unit's objects. size is the last unit's size: units
// of a fleet are alike, and a buffer of the right size is not grown (and
// copied) a dozen times.
func encodeSet(s *manifest.Set, size *atomic.Int64) (encoded, error) {
	if len(s.Objects) == 0 {
		return encoded{}, nil
	}
	var b bytes.Buffer
	b.Grow(int(size.Load()) + 4096)
	enc := manifest.NewEncoder(&b)
	for _, o := range s.Objects {
		if err := enc.Encode(o); err != nil {
			return encoded{}, err
		}
	}
	if err := enc.Flush(); err != nil {
		return encoded{}, err
	}
	size.Store(int64(b.Len()))
	return encoded{manifest.Separator(s.Objects[0]), b.Bytes()}, nil
}

// WriteStream renders everything as one multi-document stream. Output is held
// back (in memory, spilling to a temporary file when large) until the whole
// render has succeeded, so a failure never leaves half a stream in a pipe
// to kubectl. Only a few units are in memory as objects at any time.
func (e *Engine) WriteStream(w io.Writer) (*Result, error) {
	sp := &spool{}
	defer sp.Close()
	res := &Result{}
	started := false
	var size atomic.Int64
	encode := func(s *manifest.Set) (encoded, error) { return encodeSet(s, &size) }
	err := each(e, res, encode, func(u encoded) error {
		if len(u.body) == 0 {
			return nil
		}
		if !started { // room for units like the first, as far as memory is used
			sp.buf.Grow(min(len(u.body)*len(e.Units), spoolMemory))
		}
		if started {
			if _, err := io.WriteString(sp, u.sep); err != nil {
				return err
			}
		}
		started = true
		_, err := sp.Write(u.body)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, sp.CopyTo(w)
}

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
		b, err := manifest.Marshal([]*manifest.Object{o})
		if err != nil {
			return nil, err
		}
		out = append(out, objectFile{ObjectFile(s.Tenant, o), o.Kind(), o.Name(), o.Pos(o.Node), b})
	}
	return out, nil
}

// eachFile renders one file per object and hands them to f in output order,
// rejecting two objects that would land in the same file.
func (e *Engine) eachFile(f func(name string, text []byte) error) (*Result, error) {
	from := map[string]filepos.Pos{}
	res := &Result{}
	err := each(e, res, marshalFiles, func(files []objectFile) error {
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
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Files renders everything as one file per object, keyed by relative path.
func (e *Engine) Files() (map[string][]byte, []string, *Result, error) {
	files := map[string][]byte{}
	var order []string
	res, err := e.eachFile(func(name string, text []byte) error {
		files[name] = text
		order = append(order, name)
		return nil
	})
	return files, order, res, err
}

// WriteDir writes one file per object under dir, atomically: into a
// temporary sibling directory that replaces dir only when all succeeded.
// Files go to disk as units finish, so memory does not grow with the fleet.
func (e *Engine) WriteDir(dir string) (*Result, error) {
	var res *Result
	err := replaceDirWith(dir, func(tmp string) error {
		var err error
		res, err = e.eachFile(func(name string, text []byte) error { return writeFile(tmp, name, text) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func writeFile(root, name string, text []byte) error {
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, text, 0o644)
}

// replaceDirWith has fill write into a temporary sibling of dir, then swaps
// it in with renames; dir is untouched when fill fails.
func replaceDirWith(dir string, fill func(tmp string) error) error {
	dir = filepath.Clean(dir)
	// A link would be replaced, not followed, and a file deleted: refused.
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		what := "a file"
		if fi.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link; krender replaces DIR whole, so it would replace the link rather than write where it points"
		}
		return filepos.Errorf(filepos.Pos{File: dir}, "the output directory is %s: give a directory, or a path that does not exist yet", what)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// spool keeps output in memory up to a limit, then in a temporary file.
type spool struct {
	buf  bytes.Buffer
	file *os.File
}

const spoolMemory = 32 << 20

func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.buf.Len()+len(p) > spoolMemory {
		f, err := os.CreateTemp("", "krender-*.yaml")
		if err != nil {
			return 0, err
		}
		s.file = f
		if _, err := s.buf.WriteTo(f); err != nil {
			return 0, err
		}
	}
	if s.file != nil {
		return s.file.Write(p)
	}
	return s.buf.Write(p)
}

func (s *spool) CopyTo(w io.Writer) error {
	if s.file == nil {
		_, err := s.buf.WriteTo(w)
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.file)
	return err
}

func (s *spool) Close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}

// inTenant says which tenant an error arose in, after each message so that
// lines still start with the template position.
func inTenant(err error, tenant string) error {
	if tenant == "" {
		return err
	}
	suffix := " (tenant " + tenant + ")"
	switch e := err.(type) {
	case *filepos.Error:
		return &filepos.Error{Pos: e.Pos, Msg: e.Msg + suffix}
	case filepos.List:
		out := make(filepos.List, len(e))
		for i, x := range e {
			out[i] = &filepos.Error{Pos: x.Pos, Msg: x.Msg + suffix}
		}
		return out
	}
	return fmt.Errorf("tenant %s: %w", tenant, err)
}
