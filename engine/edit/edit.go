// Package edit owns workspace_edit: all-or-nothing file transactions that an
// agent previews, a human may approve, and that commit and roll back as a
// whole. A transaction lives in .agentic/transactions/<tx_id>/:
// transaction.json, changes.diff, review.md, and blobs/<sha256> holding every
// distinct content the files had before and will have after, so commit writes
// exactly what was previewed and rollback restores exactly what was there
// (persist.go). Older transactions keep before/<n> and after/<n> instead and
// are still read. It never prints; every gated action goes through
// engine/gate.
package edit

import (
	"time"
)

// Op is one operation as a caller sends it (snake_case JSON).
type Op struct {
	Type             string  `json:"type"`
	Path             string  `json:"path,omitempty"`
	Content          *string `json:"content,omitempty"`
	Overwrite        bool    `json:"overwrite,omitempty"`
	CreateIfMissing  bool    `json:"create_if_missing,omitempty"`
	Search           string  `json:"search,omitempty"`
	Replacement      *string `json:"replacement,omitempty"`
	ExpectedMatches  *int    `json:"expected_matches,omitempty"`
	ReplaceAll       bool    `json:"replace_all,omitempty"`
	StartLine        int     `json:"start_line,omitempty"`
	DeleteCount      int     `json:"delete_count,omitempty"`
	From             string  `json:"from,omitempty"`
	To               string  `json:"to,omitempty"`
	IgnoreMissing    bool    `json:"ignore_missing,omitempty"`
	ExpectSHA256     string  `json:"expect_sha256,omitempty"`
	AllowLineNumbers bool    `json:"allow_line_numbers,omitempty"`
}

// Replacement is what one replace operation (1-based) matched.
type Replacement struct {
	Operation int    `json:"operation"`
	Path      string `json:"path"`
	Count     int    `json:"count"`
}

// PreviewRequest is preview and apply: the operations, in order.
type PreviewRequest struct {
	Operations     []Op   `json:"operations"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// TxRequest names a transaction (commit, show).
type TxRequest struct {
	TransactionID string `json:"transaction_id"`
}

// RollbackRequest names a transaction; force restores over later changes.
type RollbackRequest struct {
	TransactionID string `json:"transaction_id"`
	Force         bool   `json:"force,omitempty"`
}

// ListRequest bounds the listing.
type ListRequest struct {
	Limit int `json:"limit,omitempty"`
}

// Transaction statuses.
const (
	Planned     = "planned"
	Committing  = "committing" // only while a commit runs; recovery ends it
	Applied     = "applied"
	RollingBack = "rolling_back"
	RolledBack  = "rolled_back"
	Failed      = "failed"
)

// Transaction is transaction.json. inspect changes reads id, status, files
// and directories from it.
type Transaction struct {
	ID                 string        `json:"id"`
	Status             string        `json:"status"`
	Operations         []Op          `json:"operations"`
	Files              []FileChange  `json:"files"`
	Directories        []DirChange   `json:"directories"`
	Destructive        bool          `json:"destructive"`
	DestructiveReasons []string      `json:"destructiveReasons"`
	Replacements       []Replacement `json:"replacements,omitempty"`
	IdempotencyKey     string        `json:"idempotencyKey,omitempty"`
	OpsHash            string        `json:"opsHash"`
	CommitHash         string        `json:"commitHash"`
	Error              string        `json:"error,omitempty"`
	Note               string        `json:"note,omitempty"`
	CreatedAt          time.Time     `json:"createdAt"`
	CommittedAt        time.Time     `json:"committedAt,omitzero"`
	RolledBackAt       time.Time     `json:"rolledBackAt,omitzero"`
	// CreatedDirs are directories a commit created (all levels), deepest
	// last; a failed commit or a recovery removes them while empty.
	CreatedDirs []string `json:"createdDirs,omitempty"`
}

// FileChange is the net effect on one file. Its contents live in
// blobs/<BeforeSHA256> and blobs/<AfterSHA256> of the transaction directory
// (before/<n> and after/<n> in older ones, n being the index here).
type FileChange struct {
	Path          string `json:"path"`
	Change        string `json:"change"` // create, modify, delete
	ExistedBefore bool   `json:"existedBefore"`
	BeforeSHA256  string `json:"beforeSha256,omitempty"`
	AfterSHA256   string `json:"afterSha256,omitempty"`
	Mode          uint32 `json:"mode"`       // after the commit
	BeforeMode    uint32 `json:"beforeMode"` // restored by rollback
	Additions     int    `json:"additions"`
	Deletions     int    `json:"deletions"`
}

// DirChange is a directory a mkdir asked for.
type DirChange struct {
	Path          string `json:"path"`
	ExistedBefore bool   `json:"existedBefore"`
}
