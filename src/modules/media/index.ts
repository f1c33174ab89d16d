export {
  convertToWebp,
  IMAGE_CONTENT_TYPES,
  MAX_IMAGE_DIMENSION,
  MediaError,
  type MediaErrorReason,
  mediaKeyFor,
  type RehostDeps,
  type RehostedImage,
  type RehostResult,
  rehostImages,
} from './media.pipeline.js';
export { type MediaRoutesOptions, mediaRoutes } from './media.routes.js';
export {
  createLocalStorage,
  createMediaStorage,
  createS3Storage,
  isValidMediaKey,
  localMediaRoot,
  MEDIA_CACHE_CONTROL,
  type MediaStorage,
  MediaStorageError,
  type MediaStorageOptions,
  type S3StorageOptions,
} from './media.storage.js';
