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
