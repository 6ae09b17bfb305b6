// The collector's own release version (not the wire version_info, see `run`).
export const VERSION = '0.1.0'
