package syntax

import (
	"path"
	"strings"
)

// Languages are the supported languages, by id.
var Languages = []*Language{Go, JavaScript, TypeScript, TSX, Python, Rust, Java, C, Bash}

// Planned are languages aw knows of but cannot parse yet: asking for one
// is refused as not supported yet rather than searched and not found.
var Planned = map[string]bool{"dart": true, "kotlin": true, "swift": true, "ruby": true, "cpp": true, "c++": true, "csharp": true, "php": true, "lua": true, "scala": true}

// ByID returns the language with that id or one of its aliases.
func ByID(id string) *Language {
	id = strings.ToLower(id)
	for _, l := range Languages {
		if l.ID == id {
			return l
		}
		for _, a := range l.Aliases {
			if a == id {
				return l
			}
		}
	}
	return nil
}

// ByPath returns the language of a file by its extension, or nil.
func ByPath(p string) *Language {
	ext := path.Ext(p)
	if ext == "" {
		return nil
	}
	for _, l := range Languages {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// IDs lists the supported language ids.
func IDs() []string {
	var out []string
	for _, l := range Languages {
		out = append(out, l.ID)
	}
	return out
}
