package runtime

import (
	"bytes"
	"encoding/json"
)

// TaskRequired is why a tool whose execution.taskSupport is "required"
// cannot run: such a tool must be called as an MCP task (tools/call with a
// "task" parameter, then tasks/get and tasks/result), and the host makes
// plain calls only.
const TaskRequired = "requires MCP task augmentation, which gnosis-host does not support"

// unavailableReason says why the tool (its whole object as sent) cannot run
// through this host, "" when it can.
func unavailableReason(tool json.RawMessage) string {
	if !bytes.Contains(tool, []byte(`"taskSupport"`)) {
		return ""
	}
	var t struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if json.Unmarshal(tool, &t) == nil && t.Execution.TaskSupport == "required" {
		return TaskRequired
	}
	return ""
}

// Unavailable says why capability c cannot run through this host, "" when
// it can. capabilities.list shows it as "unavailable".
func Unavailable(c Capability) string { return unavailableReason(c.Tool) }

// ListEntry is one capabilities.list entry: the capability's Summary and,
// when it cannot run here, why.
type ListEntry struct {
	Summary
	Unavailable string `json:"unavailable,omitempty"`
}

// Catalog is what capabilities.list reads: every capability, and each one's
// whole description.
type Catalog interface {
	List() []Summary
	Describe(name string) (Capability, error)
}

// ListEntries returns the capabilities.list entries of c, sorted by name.
func ListEntries(c Catalog) []ListEntry {
	list := c.List()
	out := make([]ListEntry, len(list))
	for i, s := range list {
		out[i].Summary = s
		if d, err := c.Describe(s.Name); err == nil {
			out[i].Unavailable = Unavailable(d)
		}
	}
	return out
}
