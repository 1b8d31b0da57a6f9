package output

import (
	"bytes"
	"io"
	"sync/atomic"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

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
		if err := s.Stopped(); err != nil {
			return encoded{}, err
		}
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
func (w Writer) WriteStream(e *render.Engine, out io.Writer) (*render.Result, error) {
	sp := &spool{fs: w.fs(), limit: w.spoolMemory()}
	defer sp.Close()
	started := false
	var size atomic.Int64
	encode := func(s *manifest.Set) (encoded, error) { return encodeSet(s, &size) }
	res, err := render.Map(e, encode, func(u encoded) error {
		if err := w.stopped(); err != nil {
			return err
		}
		if len(u.body) == 0 {
			return nil
		}
		if started {
			if _, err := sp.Write([]byte(u.sep)); err != nil {
				return err
			}
		}
		started = true
		_, err := sp.Write(u.body)
		return err
	})
	if err == nil {
		err = w.stopped() // nothing reaches out once stopped
	}
	if err != nil {
		return nil, err
	}
	return res, sp.CopyTo(out)
}

// spool keeps output in memory up to limit bytes, then in a temporary file.
// In memory it holds the slices it is given, not a copy: a fleet's stream is
// tens of megabytes, and one buffer holding it was allocated, cleared and
// copied into at a cost near the emitter's.
type spool struct {
	fs     filesys.FileSystem
	limit  int
	chunks [][]byte
	held   int // bytes in chunks
	file   filesys.File
}

// Write keeps p: the caller hands it over and does not change it again.
func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.held+len(p) > s.limit {
		f, err := s.fs.CreateTemp("", "krender-*.yaml")
		if err != nil {
			return 0, err
		}
		s.file = f
		if err := s.writeChunks(f); err != nil {
			return 0, err
		}
		s.chunks, s.held = nil, 0
	}
	if s.file != nil {
		return s.file.Write(p)
	}
	s.chunks = append(s.chunks, p)
	s.held += len(p)
	return len(p), nil
}

func (s *spool) writeChunks(w io.Writer) error {
	for _, c := range s.chunks {
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
}

func (s *spool) CopyTo(w io.Writer) error {
	if s.file == nil {
		return s.writeChunks(w)
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
		s.fs.Remove(s.file.Name())
	}
}
