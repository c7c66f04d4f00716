/* Layer markers of the mcucomp cycle simulator build: `mcucomp profile` compiles the model with
 * -D<NAME>_PROFILE_BEGIN(i)=fw_profile_begin(i) and -D<NAME>_PROFILE_END(i)=fw_profile_end(i). */
#ifndef FW_PROFILE_H
#define FW_PROFILE_H

void fw_profile_begin(unsigned index);
void fw_profile_end(unsigned index);

#endif
