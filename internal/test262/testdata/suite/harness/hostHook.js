// Needs the $262 host object.
function detach(buffer) { $262.detachArrayBuffer(buffer); }
