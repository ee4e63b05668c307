package workspace

import (
	"os"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Cache keeps decoded settings for a long-lived front end (aw mcp), which
// opens the workspace on every call: a settings file is read and decoded
// again only when stat says it changed (modification and change time,
// size, mode, owner, links, identity), so a change on disk applies to the
// next call while an unchanged file costs one stat.
//
// A stamp cannot see a rewrite that keeps the size within the clock's
// resolution of the read, so a file modified less than racyWindow before
// it was read is never taken from the cache (git's "racy" rule): it is
// read again until it is older than that. Everything else Open decides
// (root, scope, the trust checks on the user config, the jail) is decided
// on every call as without a cache.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cached
}

// racyWindow is wider than any file system's timestamp resolution aw runs
// on (1 s on ext3 and some network file systems).
const racyWindow = 2 * time.Second

type cacheKey struct {
	files string // the files loaded, in order, NUL-separated
}

type cached struct {
	stamps   []fileStamp
	settings Settings
	files    []string
}

// fileStamp identifies one version of a file; the zero stamp is a file
// that does not exist.
type fileStamp struct {
	exists      bool
	mtime, size int64
	mode        os.FileMode
	dev, ino    uint64
	nlink       uint64
	uid         uint32
	ctime       int64
	racy        bool // modified too close to the read to be trusted later
}

func stampOf(path string, read time.Time) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	s := sysStamp(fi)
	s.exists, s.mtime, s.size, s.mode = true, fi.ModTime().UnixNano(), fi.Size(), fi.Mode()
	// A later write moves the modification time past an old one; only a
	// recent one can be repeated by a write in the same clock tick.
	s.racy = s.mtime >= read.Add(-racyWindow).UnixNano()
	return s
}

// load returns the settings from files (lowest precedence first), decoded
// through the cache when c is not nil. Only a successful load is kept.
func (c *Cache) load(files []string) (Settings, []string, error) {
	if c == nil {
		return decodeFiles(files)
	}
	read := time.Now()
	stamps := make([]fileStamp, len(files))
	for i, f := range files {
		stamps[i] = stampOf(f, read)
	}
	key := cacheKey{files: joinNUL(files)}
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e != nil && slices.Equal(e.stamps, stamps) && !slices.ContainsFunc(stamps, func(s fileStamp) bool { return s.racy }) {
		return e.settings.clone(), slices.Clone(e.files), nil
	}
	s, used, err := decodeFiles(files)
	if err != nil {
		return s, used, err
	}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[cacheKey]*cached{}
	}
	// Stamped before the read: a change during it shows as a new stamp.
	c.entries[key] = &cached{stamps: stamps, settings: s.clone(), files: slices.Clone(used)}
	c.mu.Unlock()
	return s, used, nil
}

func joinNUL(files []string) string {
	n := ""
	for _, f := range files {
		n += f + "\x00"
	}
	return n
}

// decodeFiles merges the defaults and files into settings and validates
// them, returning the files that existed.
func decodeFiles(files []string) (Settings, []string, error) {
	s, used := Defaults(), []string(nil)
	for _, f := range files {
		if ok, err := loadSettingsFile(&s, f); err != nil {
			return s, nil, err
		} else if ok {
			used = append(used, f)
		}
	}
	return s, used, s.Validate()
}

// clone copies the settings with their lists and maps, so a call that
// changed its copy could not change the next call's.
func (s Settings) clone() Settings {
	out := s
	v := reflect.ValueOf(&out).Elem()
	for _, k := range settingKeys() {
		f := v.FieldByIndex(k.path)
		switch k.Kind {
		case reflect.Slice:
			if !f.IsNil() {
				c := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
				reflect.Copy(c, f)
				f.Set(c)
			}
		case reflect.Map:
			if !f.IsNil() {
				c := reflect.MakeMapWithSize(f.Type(), f.Len())
				for it := f.MapRange(); it.Next(); {
					c.SetMapIndex(it.Key(), it.Value())
				}
				f.Set(c)
			}
		}
	}
	return out
}
