package workspace

import (
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// statInfo is a FileInfo carrying a chosen Stat_t.
type statInfo struct{ st *syscall.Stat_t }

func (s statInfo) Name() string       { return "config.json" }
func (s statInfo) Size() int64        { return s.st.Size }
func (s statInfo) Mode() fs.FileMode  { return 0o644 }
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Sec, s.st.Mtim.Nsec) }
func (s statInfo) IsDir() bool        { return false }
func (s statInfo) Sys() any           { return s.st }

// TestStampChangeTimeWholeSeconds: two change times that differ by whole
// seconds, with the same nanoseconds, are different stamps (a settings file
// rewritten a second later with the same size and mtime set back is seen).
func TestStampChangeTimeWholeSeconds(t *testing.T) {
	at := func(sec int64) fileStamp {
		return sysStamp(statInfo{&syscall.Stat_t{Ino: 7, Ctim: syscall.Timespec{Sec: sec, Nsec: 500}}})
	}
	if at(1_764_600_000) == at(1_764_600_001) {
		t.Fatal("change times a second apart gave the same stamp")
	}
	if a, b := at(1_764_600_000), at(1_764_600_000); a != b {
		t.Fatalf("the same change time gave different stamps: %+v %+v", a, b)
	}
}
