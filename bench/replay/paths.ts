// The collection paths the replay server serves (shared by the children, which must not load the cluster code).
export const PODS_PATH = '/api/v1/pods'
export const RS_PATH = '/apis/apps/v1/replicasets'
export const JOBS_PATH = '/apis/batch/v1/jobs'
export const JSON_PATHS = [PODS_PATH, RS_PATH, JOBS_PATH] as const
