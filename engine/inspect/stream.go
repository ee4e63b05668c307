package inspect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"strconv"

	"github.com/agentic-workspace/aw/engine/bufpool"
	"github.com/agentic-workspace/aw/engine/eol"
)

func strconvItoa(n int64) string { return strconv.FormatInt(n, 10) }

// Streaming: a file is read once, in large chunks, from the start. The
// SHA-256 of the whole file is computed in a second goroutine over the same
// buffers while the caller's goroutine counts lines and picks the window out,
// so a read costs about what hashing alone costs and memory stays bounded by
// the buffers, not the file.
const (
	chunkSize  = 1 << 20 // bytes per read
	chunkCount = 4       // buffers in flight between reader and hasher
	sniffSize  = 8 << 10 // bytes checked for NUL: a binary file
	parallelAt = 2 * chunkSize
)

// fileSummary is what one pass over a file learns.
type fileSummary struct {
	Size     int64
	Lines    int64 // newline-terminated lines, plus a final unterminated one
	SHA256   string
	Binary   bool // a NUL in the first 8 KiB
	EndsInNL bool
	CRLF     int64 // line ends preceded by a CR
	BOM      bool  // starts with the UTF-8 byte order mark
}

// errBinary stops a stream that was asked to refuse binary files.
type errBinary struct{}

func (errBinary) Error() string { return "binary file" }

// streamFile reads f to the end once. visit, when not nil, sees every chunk
// in order (it must not keep the slice). With refuseBinary, a NUL in the
// first 8 KiB stops the stream with errBinary before the rest is read.
func streamFile(f *os.File, size int64, refuseBinary bool, visit func([]byte)) (fileSummary, error) {
	var s fileSummary
	var last byte
	first := true
	handle := func(b []byte) error {
		if first {
			first = false
			head := b
			if len(head) > sniffSize {
				head = head[:sniffSize]
			}
			s.Binary = bytes.IndexByte(head, 0) >= 0
			if s.Binary && refuseBinary {
				return errBinary{}
			}
			s.BOM = bytes.HasPrefix(b, []byte(eol.BOM))
		}
		s.Lines += int64(bytes.Count(b, []byte{'\n'}))
		s.CRLF += eol.CountCRLF(b, last == '\r')
		last = b[len(b)-1]
		s.Size += int64(len(b))
		if visit != nil {
			visit(b)
		}
		return nil
	}
	var sum []byte
	var err error
	if size < parallelAt {
		sum, err = streamSerial(f, size, handle)
	} else {
		sum, err = streamParallel(f, handle)
	}
	if err != nil {
		return s, err
	}
	s.SHA256 = hex.EncodeToString(sum)
	s.EndsInNL = last == '\n'
	if s.Size > 0 && !s.EndsInNL {
		s.Lines++
	}
	return s, nil
}

// streamSerial reads into one buffer sized for the size stat saw, plus a
// byte so the end shows in the same read: a file of exactly 64 KiB must not
// cost a 1 MiB buffer (its zeroing and page faults were most of a read).
func streamSerial(f *os.File, size int64, handle func([]byte) error) ([]byte, error) {
	h := sha256.New()
	p := bufpool.Get(int(min(size+1, chunkSize)))
	defer func() { bufpool.Put(p) }()
	buf := (*p)[:cap(*p)]
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			h.Write(buf[:n])
			if herr := handle(buf[:n]); herr != nil {
				return nil, herr
			}
			if n == len(buf) && len(buf) < chunkSize {
				bufpool.Put(p)
				p = bufpool.Get(chunkSize) // a large file: bigger reads
				buf = (*p)[:chunkSize]
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return h.Sum(nil), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// streamParallel hashes in its own goroutine. A buffer goes back to the
// reader only once the hasher is done with it; the reader's own work on a
// buffer finishes before it reads the next one.
func streamParallel(f *os.File, handle func([]byte) error) ([]byte, error) {
	type chunk struct{ i, n int }
	bufs := make([][]byte, chunkCount)
	free := make(chan int, chunkCount)
	for i := range bufs {
		bufs[i] = make([]byte, chunkSize)
		free <- i
	}
	work := make(chan chunk, chunkCount)
	done := make(chan []byte, 1)
	go func() {
		h := sha256.New()
		for c := range work {
			h.Write(bufs[c.i][:c.n])
			free <- c.i
		}
		done <- h.Sum(nil)
	}()
	for {
		i := <-free
		n, err := io.ReadFull(f, bufs[i])
		if n > 0 {
			work <- chunk{i, n}
			if herr := handle(bufs[i][:n]); herr != nil {
				close(work)
				<-done
				return nil, herr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			close(work)
			return <-done, nil
		}
		if err != nil {
			close(work)
			<-done
			return nil, err
		}
	}
}
